/**
 * How many terminal columns a text takes: escape sequences and zero-width marks none, East Asian
 * wide characters and emoji two, everything else one. The bin's bundled yargs lays out its help with
 * this in place of the `string-width` package (tsup.config.ts), whose Unicode tables are built when it
 * is loaded: some 30 ms of every command's start on a 2-core machine. Here they are built on the
 * first text that is not plain ASCII, which a command that prints no help never has.
 */
import { eastAsianWidth } from 'get-east-asian-width';

export interface TextWidthOptions {
  /** Count escape sequences as the characters they are (default: they take no column). */
  readonly countAnsiEscapeCodes?: boolean;
  /** Characters of ambiguous width are narrow (default true), as most terminals draw them. */
  readonly ambiguousIsNarrow?: boolean;
}

const PLAIN = /^[\x20-\x7e]*$/;
// CSI (ESC [ or 0x9b … final byte) and OSC (ESC ] … BEL or ESC \) sequences.
const ESCAPES = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-_]/g;

interface Tables {
  readonly segmenter: Intl.Segmenter;
  readonly zeroWidth: RegExp;
  readonly pictographic: RegExp;
}
let tables: Tables | undefined;

function built(): Tables {
  tables ??= {
    segmenter: new Intl.Segmenter(),
    zeroWidth: /^[\p{Default_Ignorable_Code_Point}\p{Control}\p{Format}\p{Mark}\p{Surrogate}]+$/u,
    pictographic: /\p{Extended_Pictographic}/u,
  };
  return tables;
}

/** Columns of one grapheme cluster. */
function clusterWidth(cluster: string, t: Tables, ambiguousAsWide: boolean): number {
  if (t.zeroWidth.test(cluster)) return 0;
  const first = cluster.codePointAt(0) ?? 0;
  // An emoji: a pictograph drawn as emoji (a presentation selector, a joined sequence, or one from the emoji planes).
  if (t.pictographic.test(cluster) && (first >= 0x1f000 || /[\ufe0f\u200d]/.test(cluster))) return 2;
  return eastAsianWidth(first, { ambiguousAsWide });
}

/** The text's width in terminal columns. */
export default function textWidth(text: string, options: TextWidthOptions = {}): number {
  if (typeof text !== 'string' || text === '') return 0;
  if (PLAIN.test(text)) return text.length;
  const shown = options.countAnsiEscapeCodes ? text : text.replace(ESCAPES, '');
  if (PLAIN.test(shown)) return shown.length;
  const t = built();
  const ambiguousAsWide = options.ambiguousIsNarrow === false;
  let width = 0;
  for (const { segment } of t.segmenter.segment(shown)) width += clusterWidth(segment, t, ambiguousAsWide);
  return width;
}
