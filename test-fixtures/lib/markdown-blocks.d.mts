/** One fenced block of a markdown file. */
export interface FencedBlock {
  readonly file: string;
  /** Line (1-based) of the opening fence. */
  readonly line: number;
  /** The info string's first word ('' when none). */
  readonly lang: string;
  /** Every word of the info string. */
  readonly words: readonly string[];
  readonly code: string;
}
export type BlockVerdict = { kind: 'typecheck' | 'run' | 'real' | 'illustrative' | 'data' } | { kind: 'problem'; why: string };
export declare const ILLUSTRATIVE: 'illustrative';
export declare const REAL: 'real';
/** Files (relative to the root) whose ```sh real blocks the real-CLI tier runs, and the test that does. */
export declare const REAL_TIER: Readonly<Record<string, string>>;
export declare function docMarkdownFiles(root: string): string[];
export declare function fencedBlocks(file: string, text: string): FencedBlock[];
export declare function classify(block: Pick<FencedBlock, 'file' | 'lang' | 'words'>): BlockVerdict;
export declare function blockProblems(root: string, blocks: readonly FencedBlock[]): string[];
