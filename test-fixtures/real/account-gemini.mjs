export async function geminiTuiCase() {
  throw new Error('todo');
}
export async function geminiPrintCase() {
  throw new Error('todo');
}
