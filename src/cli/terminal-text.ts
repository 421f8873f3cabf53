// Model and tool text shown to a person must not drive their terminal: a reply holding `ESC[2J` would clear the
// screen, an OSC sequence would set the window title (or, on some terminals, write the clipboard). Every control
// character except newline and tab is shown as a visible escape instead. `--json` output needs none of this:
// JSON.stringify already escapes control characters, and it must stay byte-exact.

/** C0 controls except \t and \n, DEL, and the C1 range (U+0080–U+009F: 8-bit CSI, OSC, … on some terminals). */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function terminalSafe(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(CONTROLS, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
