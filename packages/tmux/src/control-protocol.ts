/**
 * tmux control mode (`tmux -C`), the part umbel reads: the reply block of each command this client
 * sent or was started with (`%begin <time> <n> <flags>` … `%end|%error <time> <n> <flags>`),
 * `%output` notices (the pane printed something) and `%exit`. Other notices (`%session-changed`,
 * `%window-renamed`, …) are skipped. Pure: fed chunks, it calls back.
 */

/** The answer of one command sent on a control client. */
export interface ControlReply {
  /** `true` for `%end`, `false` for `%error`. */
  readonly ok: boolean;
  /** The reply's lines joined, each ended by a newline (what the command prints as a plain client). */
  readonly text: string;
  /**
   * Whether this client sent the command (flag 1). The one it did not send is the command it was
   * started with (the attach), answered before any line of its stdin is run.
   */
  readonly mine: boolean;
}

/** What the parser reports. */
export interface ControlEvents {
  reply(reply: ControlReply): void;
  output(): void;
  exit(reason: string): void;
}

const BEGIN = /^%begin (\d+) (\d+) (\d+)$/;

/** Feed it raw stdout chunks of a control client; it splits lines and reports. */
export function controlParser(events: ControlEvents): (chunk: string) => void {
  let partial = '';
  let block: { readonly close: string; readonly mine: boolean; readonly lines: string[] } | undefined;
  const line = (text: string): void => {
    if (block) {
      // Only the guard line with this block's own time and number closes it: a screen line that
      // merely starts with `%end` stays text.
      if (text === `%end ${block.close}` || text === `%error ${block.close}`) {
        const done = block;
        block = undefined;
        events.reply({ ok: text.startsWith('%end'), text: done.lines.map((l) => `${l}\n`).join(''), mine: done.mine });
        return;
      }
      block.lines.push(text);
      return;
    }
    const begin = BEGIN.exec(text);
    if (begin) {
      block = { close: `${begin[1]} ${begin[2]} ${begin[3]}`, mine: (Number(begin[3]) & 1) === 1, lines: [] };
      return;
    }
    if (text.startsWith('%output ') || text.startsWith('%extended-output ')) events.output();
    else if (text === '%exit' || text.startsWith('%exit ')) events.exit(text.slice(6));
  };
  return (chunk) => {
    partial += chunk;
    for (let cut = partial.indexOf('\n'); cut >= 0; cut = partial.indexOf('\n')) {
      line(partial.slice(0, cut));
      partial = partial.slice(cut + 1);
    }
  };
}

const PLAIN_ARGUMENT = /^[A-Za-z0-9_=:.,@/+-]+$/;

/**
 * One command line for a control client's stdin (tmux's own command syntax). umbel sends only
 * arguments it made itself: plain words stay bare, others are single-quoted; a quote, a newline or
 * an empty word is refused rather than escaped.
 */
export function controlCommandLine(argv: readonly string[]): string {
  return argv
    .map((arg) => {
      if (PLAIN_ARGUMENT.test(arg)) return arg;
      if (arg === '' || /['\n\r\\]/.test(arg)) throw new Error(`not sent on a tmux control client: ${JSON.stringify(arg)}`);
      return `'${arg}'`;
    })
    .join(' ');
}
