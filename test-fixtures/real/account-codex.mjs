export async function codexTuiCase() {
  throw new Error('todo');
}
export async function codexExecCase() {
  throw new Error('todo');
}
