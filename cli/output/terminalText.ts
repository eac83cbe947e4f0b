/**
 * What the service sends (log lines a function printed, its names, errors, outputs) reaches a
 * person's terminal, which acts on control sequences: clearing the screen, moving the cursor,
 * setting the window title, making links that point elsewhere, on some terminals answering
 * into the shell's input. At a terminal every control character is shown as text instead
 * (`^[`, `^M`, `\u009b`), colours (SGR, `ESC [ ... m`) excepted: the CLI's own styles, and a
 * function's coloured logs, only colour text. Tabs and newlines stay as they are.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /\u001b\[[0-9;]*m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function terminalSafe(text: string): string {
  return text.replace(CONTROL, (found) => {
    if (found.length > 1) return found;
    const code = found.charCodeAt(0);
    if (code < 0x20) return `^${String.fromCharCode(code + 64)}`;
    if (code === 0x7f) return '^?';
    return `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
