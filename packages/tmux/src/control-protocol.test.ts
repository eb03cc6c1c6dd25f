import { describe, expect, it } from 'vitest';
import { type ControlReply, controlCommandLine, controlParser } from './control-protocol.js';

function record() {
  const seen: { replies: ControlReply[]; outputs: number; exits: string[] } = { replies: [], outputs: 0, exits: [] };
  const feed = controlParser({
    reply: (r) => seen.replies.push(r),
    output: () => {
      seen.outputs += 1;
    },
    exit: (reason) => seen.exits.push(reason),
  });
  return { seen, feed };
}

describe('controlParser', () => {
  it('reports reply blocks, telling whose command each answers, and skips other notices', () => {
    const { seen, feed } = record();
    feed('%begin 1796 264 0\n%end 1796 264 0\n%session-changed $0 w\n%begin 1796 270 1\nline 1\n\nline 3\n%end 1796 270 1\n');
    expect(seen.replies).toEqual([
      { ok: true, text: '', mine: false },
      { ok: true, text: 'line 1\n\nline 3\n', mine: true },
    ]);
    expect(seen.outputs).toBe(0);
  });

  it('joins lines split across chunks and tells %error from %end', () => {
    const { seen, feed } = record();
    feed("%begin 5 7 1\ncan't find ");
    feed('session: x\n%err');
    feed('or 5 7 1\n');
    expect(seen.replies).toEqual([{ ok: false, text: "can't find session: x\n", mine: true }]);
  });

  it('keeps a screen line that only looks like a guard line as text', () => {
    const { seen, feed } = record();
    feed('%begin 9 3 1\n%end 9 2 1\n%end\n%error 1 3 1\n%end 9 3 1\n');
    expect(seen.replies).toEqual([{ ok: true, text: '%end 9 2 1\n%end\n%error 1 3 1\n', mine: true }]);
  });

  it('reports output notices (outside blocks only) and the exit', () => {
    const { seen, feed } = record();
    feed('%output %0 line 2\\015\\012\n%begin 1 1 1\n%output %0 inside\n%end 1 1 1\n%extended-output %0 0 : x\n%exit too far behind\n');
    expect(seen.outputs).toBe(2);
    expect(seen.replies).toEqual([{ ok: true, text: '%output %0 inside\n', mine: true }]);
    expect(seen.exits).toEqual(['too far behind']);
  });
});

describe('controlCommandLine', () => {
  it('leaves plain words bare and single-quotes the rest', () => {
    expect(controlCommandLine(['capture-pane', '-p', '-J', '-t', '=umbel-w1:', '-S', '-60'])).toBe('capture-pane -p -J -t =umbel-w1: -S -60');
    expect(controlCommandLine(['display-message', '-p', '#{pane_id} x'])).toBe("display-message -p '#{pane_id} x'");
  });

  it('refuses what it would have to escape', () => {
    for (const bad of ["it's", 'a\nb', '', 'back\\slash']) expect(() => controlCommandLine(['x', bad])).toThrow(/control client/);
  });
});
