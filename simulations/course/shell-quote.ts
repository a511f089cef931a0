/**
 * Shell words for the commands we print for a user to paste (the CLI's `replay:` line, "Try it"'s
 * `sha256sum` line): pasted into sh or bash, each comes back as exactly the text it was made from.
 */

/** `text` as one single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `text` bare when the shell would read it unchanged (a scenario id, a plain path), else quoted. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : shellQuote(text);
}
