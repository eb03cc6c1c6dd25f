/** A command a CLI's shell tool records as an argv (`["bash", "-lc", "ls -la"]`), as the one line a person would read. Pure. */

/** `sh -c CMD` (bash, zsh, dash; `-lc` too) → CMD; any other argv → its words, each quoted for a POSIX shell where it needs it. Non-strings are dropped. */
export function argvCommandLine(argv: readonly unknown[]): string {
  const words = argv.filter((w): w is string => typeof w === 'string');
  if (words.length >= 3 && /(^|\/)(ba|z|da)?sh$/.test(words[0] as string) && /^-\w*c$/.test(words[1] as string)) return words.slice(2).join(' ');
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
