/**
 * The ink component of `umbel top` (thin): it subscribes to the store, draws the frame ./view.ts
 * computes for the terminal's size, and hands every key press to the store.
 */
import { Box, Text, useInput, useStdout } from 'ink';
import { createElement as h, type ReactElement, useEffect, useState, useSyncExternalStore } from 'react';
import type { TopStore } from './store.js';
import { frame } from './view.js';

function useSize(): { width: number; height: number } {
  const { stdout } = useStdout();
  const read = () => ({ width: stdout.columns || 80, height: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  });
  return size;
}

export function App({ store }: { readonly store: TopStore }): ReactElement {
  const snapshot = useSyncExternalStore(store.subscribe, store.snapshot);
  const { width, height } = useSize();
  useInput((input, key) => store.key(input, key));
  const f = frame({ ...snapshot, width, height });
  return h(
    Box,
    { flexDirection: 'column', width, height: height - 1 },
    h(Text, { bold: true, wrap: 'truncate' }, f.header),
    h(Text, { dimColor: true, wrap: 'truncate' }, f.columns),
    h(Box, { flexDirection: 'column', flexGrow: 1 }, ...f.rows.map((row, i) => h(Text, { key: i, inverse: i === f.selected, wrap: 'truncate' }, row))),
    h(Text, { dimColor: true, wrap: 'truncate' }, f.detailTitle),
    h(
      Box,
      { flexDirection: 'column', height: f.detailHeight },
      ...f.detail.map((row, i) => h(Text, { key: `d${i}`, wrap: 'truncate' }, row === '' ? ' ' : row)),
    ),
    h(Text, { wrap: 'truncate' }, f.footer),
  );
}
