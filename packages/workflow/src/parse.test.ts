import { describe, expect, it } from 'vitest';
import { checkBindings, parseWorkflow } from './index.js';

/** The message of the WorkflowInvalidError thrown by `fn` (fails the test when none is thrown). */
function invalid(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toMatchObject({ code: 'UMBEL_WORKFLOW_INVALID', name: 'WorkflowInvalidError' });
    return (error as Error).message;
  }
  throw new Error('expected a WorkflowInvalidError, but the workflow parsed');
}

/** `wf.yaml:LINE:COL` of the nth occurrence of `needle` in `text` (1-based, like the messages). */
function loc(text: string, needle: string, nth = 0): string {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf(needle, at + 1);
  if (at === -1) throw new Error(`needle ${needle} not in text`);
  const before = text.slice(0, at).split('\n');
  return `wf.yaml:${before.length}:${(before[before.length - 1] as string).length + 1}`;
}

const parse = (text: string, extra: Parameters<typeof parseWorkflow>[1] = {}) => parseWorkflow(text, { file: 'wf.yaml', ...extra });

const OK = `name: ok
workers:
  reviewer: {provider: claude, model: sonnet, env: {TOKEN: {fromEnv: GH_TOKEN}, MODE: strict}}
  fixer:
    provider: codex
    cwd: ../repo
    unattended: true
steps:
  - id: review
    worker: reviewer
    prompt: Review {{ vars.branch }} for {{ env.USER_NAME }}
    timeout: 5m
    check: test -s "$UMBEL_ANSWER_FILE"
    retries: 1
    outputs: {notes: answer, report: "file:REPORT.md"}
  - id: fix
    worker: fixer
    needs: [review]
    prompt: "Fix: {{ steps.review.output }} / {{steps.review.outputs.report}}"
  - id: verify
    worker: reviewer
    needs: [fix]
    prompt: Did it work? {{ steps.fix.output }} and {{ steps.review.outputs.notes }}
`;

describe('parseWorkflow: a valid file', () => {
  it('applies the core schemas: defaults, durations in ms, env map, relative dir', () => {
    const wf = parse(OK, { dir: '/base' });
    expect(wf.dir).toBe('/base');
    expect(wf.spec.workers.reviewer).toEqual({
      provider: 'claude',
      model: 'sonnet',
      env: { TOKEN: { fromEnv: 'GH_TOKEN' }, MODE: 'strict' },
      unattended: false,
      billing: 'any',
    });
    expect(wf.spec.workers.fixer).toMatchObject({ provider: 'codex', cwd: '../repo', unattended: true });
    const [review, fix] = wf.spec.steps;
    expect(review).toMatchObject({ timeout: 300_000, retries: 1, checkTimeout: 300_000, needs: [], outputs: { notes: 'answer', report: 'file:REPORT.md' } });
    expect(fix).toMatchObject({ timeout: 30 * 60_000, retries: 2, needs: ['review'], outputs: {} });
  });

  it('provider defaults to claude; dir defaults to the file directory', () => {
    const wf = parseWorkflow('workers: {w: {}}\nsteps: [{id: a, worker: w, prompt: hi}]\n', { file: '/some/where/wf.yaml' });
    expect(wf.spec.workers.w?.provider).toBe('claude');
    expect(wf.dir).toBe('/some/where');
  });

  it('checks vars and env only when they are given, and accepts them when present', () => {
    expect(() => parse(OK, { vars: { branch: 'main' }, env: { USER_NAME: 'ann', GH_TOKEN: 'x' } })).not.toThrow();
  });
});

describe('parseWorkflow: every validation error names line:column and the problem', () => {
  it('YAML syntax error', () => {
    expect(invalid(() => parse('workers:\n  w: {provider: claude\nsteps: []\n'))).toMatch(/^invalid workflow: not valid YAML: wf\.yaml:\d+:\d+: /);
  });

  it('duplicate YAML keys', () => {
    expect(invalid(() => parse('workers:\n  w: {}\n  w: {}\nsteps: []\n'))).toContain('wf.yaml:3:3: Map keys must be unique');
  });

  it('empty file', () => {
    expect(invalid(() => parse(''))).toContain('wf.yaml:1:1: the file is empty');
  });

  it('unknown fields, with a hint for upstream spellings', () => {
    const message = invalid(() => parse('workers:\n  w: {allowed-tools: Bash}\nsteps:\n  - id: a\n    run: w\n    worker: w\n    prompt: hi\n'));
    expect(message).toContain("wf.yaml:2:7: unknown field 'allowed-tools' (use 'allowedTools:')");
    expect(message).toContain("wf.yaml:5:5: unknown field 'run' (use 'worker:')");
  });

  it('missing required field points at the step', () => {
    expect(invalid(() => parse('workers: {w: {}}\nsteps:\n  - id: a\n    worker: w\n'))).toContain("wf.yaml:3:5: missing required field 'prompt'");
  });

  it('bad duration, bad env value, bad output source, bad worker key', () => {
    const text =
      'workers:\n  Bad_Key: {}\n  w: {env: {X: 3}}\nsteps:\n  - id: a\n    worker: w\n    prompt: hi\n    timeout: 5 minutes\n    outputs: {k: "fil:x"}\n';
    const message = invalid(() => parse(text));
    expect(message).toContain('invalid workflow (4 problems)');
    expect(message).toContain(`${loc(text, 'Bad_Key')}: Bad_Key: a worker key is lowercase`);
    expect(message).toContain(`${loc(text, '3}')}: 'X': an env value is a string or {fromEnv: NAME}`);
    expect(message).toContain(`${loc(text, '5 minutes')}: timeout: '5 minutes' is not a duration`);
    expect(message).toContain(`${loc(text, '"fil:x"')}: k: an output is "answer" or "file:`);
  });

  it('no workers / no steps', () => {
    const message = invalid(() => parse('workers: {}\nsteps: []\n'));
    expect(message).toContain('wf.yaml:1:10: workers: declare at least one worker');
    expect(message).toContain('wf.yaml:2:8: steps: declare at least one step');
  });

  it('unknown worker reference', () => {
    expect(invalid(() => parse('workers: {w: {}}\nsteps:\n  - id: a\n    worker: nope\n    prompt: hi\n'))).toContain(
      "wf.yaml:4:13: step 'a' uses worker 'nope', which is not declared under workers: (declared: w)",
    );
  });

  it('duplicate step ids', () => {
    const text = 'workers: {w: {}}\nsteps:\n  - {id: a, worker: w, prompt: x}\n  - {id: a, worker: w, prompt: y}\n';
    expect(invalid(() => parse(text))).toContain(`${loc(text, 'a,', 1)}: duplicate step id 'a' (also step 1, line 3)`);
  });

  it('needs an unknown step, or itself', () => {
    const text = 'workers: {w: {}}\nsteps:\n  - {id: a, worker: w, prompt: x, needs: [ghost]}\n  - {id: b, worker: w, prompt: y, needs: [b]}\n';
    const message = invalid(() => parse(text));
    expect(message).toContain(`${loc(text, 'ghost')}: step 'a' needs 'ghost', which is not a step id`);
    expect(message).toContain(`${loc(text, 'b]')}: step 'b' needs itself`);
  });

  it('a cycle names the steps in it', () => {
    const text =
      'workers: {w: {}, v: {}}\nsteps:\n  - {id: a, worker: w, prompt: x, needs: [c]}\n  - {id: b, worker: v, prompt: y, needs: [a]}\n  - {id: c, worker: v, prompt: z, needs: [b]}\n';
    const message = invalid(() => parse(text));
    // b waits for a, c for b, a for c: any rotation of a → b → c → a
    expect(message).toMatch(/wf\.yaml:\d+:\d+: steps form a cycle: (a → b → c → a|b → c → a → b|c → a → b → c)$/);
  });

  it('a cycle through the worker order says why', () => {
    const message = invalid(() =>
      parse('workers: {w: {}}\nsteps:\n  - {id: first, worker: w, prompt: x, needs: [second]}\n  - {id: second, worker: w, prompt: y}\n'),
    );
    expect(message).toContain('steps form a cycle: ');
    expect(message).toContain("'second' runs after 'first' because both use worker 'w'");
  });

  it('malformed templates, pointing inside the prompt', () => {
    const text = 'workers: {w: {}}\nsteps:\n  - id: a\n    worker: w\n    prompt: "hello {{ $session }} and {{ steps.a }} and {{ open"\n';
    const message = invalid(() => parse(text));
    expect(message).toContain(`${loc(text, '{{ $session')}: '{{ $session }}' is not a template; use {{ steps.ID.output }}`);
    expect(message).toContain(`${loc(text, '{{ steps.a }}')}: '{{ steps.a }}' is not a template`);
    expect(message).toContain(`${loc(text, '{{ open')}: '{{' is never closed`);
  });

  it('{{ steps.ID.output }} where ID does not exist or is not upstream', () => {
    const text = [
      'workers: {w: {}, v: {}}',
      'steps:',
      '  - {id: a, worker: w, prompt: x}',
      '  - id: b',
      '    worker: v',
      '    prompt: |',
      '      first line',
      '      uses {{ steps.a.output }} and {{ steps.zz.output }} and {{ steps.c.output }}',
      '  - {id: c, worker: v, prompt: "{{ steps.b.outputs.nope }}", needs: [b]}',
    ].join('\n');
    const message = invalid(() => parse(text));
    expect(message).toContain(`${loc(text, '{{ steps.a.output')}: {{ steps.a.output }}: step 'a' is not upstream of 'b' (add it to needs:)`);
    expect(message).toContain(`${loc(text, '{{ steps.zz')}: {{ steps.zz.output }} refers to step 'zz', which does not exist`);
    expect(message).toContain(`${loc(text, '{{ steps.c.output')}: {{ steps.c.output }}: step 'c' is not upstream of 'b'`);
    expect(message).toContain(`${loc(text, '{{ steps.b.outputs')}: {{ steps.b.outputs.nope }}: step 'b' declares no output 'nope' (it has no outputs:)`);
  });

  it('an earlier step on the same worker counts as upstream, transitively through needs too', () => {
    const text =
      'workers: {w: {}, v: {}}\nsteps:\n  - {id: a, worker: w, prompt: x}\n  - {id: b, worker: w, prompt: "{{ steps.a.output }}"}\n  - {id: c, worker: v, needs: [b], prompt: "{{ steps.a.output }}"}\n';
    expect(parse(text).spec.steps).toHaveLength(3);
  });

  it('{{ vars.K }} not given, {{ env.X }} not set, {fromEnv: X} not set', () => {
    const text =
      'workers:\n  w: {env: {KEY: {fromEnv: API_KEY}}}\nsteps:\n  - id: a\n    worker: w\n    prompt: "{{ vars.branch }} {{ env.HOME_X }} {{ vars.ok }}"\n';
    const message = invalid(() => parse(text, { vars: { ok: '1' }, env: {} }));
    expect(message).toContain(`${loc(text, '{fromEnv')}: worker 'w': env KEY takes {fromEnv: API_KEY}, but API_KEY is not set`);
    expect(message).toContain(`${loc(text, '{{ vars.branch')}: {{ vars.branch }}: no value for var 'branch' (pass --var branch=VALUE; given: ok)`);
    expect(message).toContain(`${loc(text, '{{ env.HOME_X')}: {{ env.HOME_X }}: environment variable HOME_X is not set`);
    const wf = parse(text);
    expect(() => checkBindings(wf, { vars: { branch: 'b', ok: '' }, env: { HOME_X: '/h', API_KEY: 'k' } })).not.toThrow();
  });
});

describe('parseWorkflow: every problem in one pass', () => {
  /** The WorkflowInvalidError itself. */
  function error(fn: () => unknown): Error & { issues: { path: string; message: string }[] } {
    invalid(fn);
    try {
      fn();
    } catch (e) {
      return e as Error & { issues: { path: string; message: string }[] };
    }
    throw new Error('unreachable');
  }

  it('schema issues, unknown workers and needs, template references and a cycle, all in one error', () => {
    const text = [
      'workers: {w: {}, v: {}}',
      'steps:',
      '  - {id: a, worker: w, prompt: x, timeout: soon}',
      '  - {id: b, worker: nobody, prompt: x}',
      '  - {id: c, worker: v, prompt: x, needs: [ghost]}',
      '  - {id: d, worker: v, prompt: "{{ steps.zz.output }}"}',
      '  - {id: e, worker: w, prompt: x, needs: [f]}',
      '  - {id: f, worker: v, prompt: x, needs: [e]}',
    ].join('\n');
    const e = error(() => parse(text));
    expect(e.message).toContain('invalid workflow (5 problems): ');
    expect(e.message).toContain(`${loc(text, 'soon')}: timeout: 'soon' is not a duration`);
    expect(e.message).toContain(`${loc(text, 'nobody')}: step 'b' uses worker 'nobody'`);
    expect(e.message).toContain(`${loc(text, 'ghost')}: step 'c' needs 'ghost', which is not a step id`);
    expect(e.message).toContain(`${loc(text, '{{ steps.zz')}: {{ steps.zz.output }} refers to step 'zz', which does not exist`);
    expect(e.message).toMatch(/steps form a cycle: e → f → e/);
    expect(e.issues).toHaveLength(5);
    // The message lists them in file order, one per line.
    expect(e.message.split('\n').map((l) => /wf\.yaml:(\d+):/.exec(l)?.[1])).toEqual(['3', '4', '5', '6', '7']);
  });

  it('a step that fails the schema still has its references checked', () => {
    const text = 'workers: {w: {}}\nsteps:\n  - {id: a, worker: w, prompt: "{{ steps.nope.output }}", retries: many}\n';
    const message = invalid(() => parse(text));
    expect(message).toContain('retries: ');
    expect(message).toContain("{{ steps.nope.output }} refers to step 'nope', which does not exist");
  });

  it('two separate cycles are both named', () => {
    const text =
      'workers: {w: {}, v: {}, x: {}, y: {}}\nsteps:\n  - {id: a, worker: w, prompt: x, needs: [b]}\n  - {id: b, worker: v, prompt: x, needs: [a]}\n  - {id: c, worker: x, prompt: x, needs: [d]}\n  - {id: d, worker: y, prompt: x, needs: [c]}\n';
    const message = invalid(() => parse(text));
    expect(message).toContain('steps form a cycle: a → b → a');
    expect(message).toContain('steps form a cycle: c → d → c');
  });

  it('with vars and env given, missing bindings join the other problems', () => {
    const text = 'workers: {w: {}}\nsteps:\n  - {id: a, worker: w, prompt: "{{ vars.branch }}", timeout: soon}\n';
    const message = invalid(() => parse(text, { vars: {}, env: {} }));
    expect(message).toContain('invalid workflow (2 problems)');
    expect(message).toContain("no value for var 'branch'");
  });

  it('the message lists the first 100 problems and says how many more; the issues list has them all', () => {
    const steps = Array.from({ length: 150 }, (_, i) => `  - {id: s${i}, worker: nobody, prompt: x}`).join('\n');
    const e = error(() => parse(`workers: {w: {}}\nsteps:\n${steps}\n`));
    expect(e.issues).toHaveLength(150);
    const lines = e.message.split('\n');
    expect(lines).toHaveLength(101);
    expect(lines[0]).toMatch(/^invalid workflow \(150 problems\): wf\.yaml:3:/);
    expect(lines[100]).toBe('… and 50 more problems');
  });
});

describe('parseWorkflow: durations are strings with a unit', () => {
  it('a bare number is refused with a hint, for every duration field', () => {
    const text = 'workers: {w: {}}\nsteps:\n  - {id: a, worker: w, prompt: x, timeout: 10, idleTimeout: 0, checkTimeout: 2.5}\n';
    const message = invalid(() => parse(text));
    expect(message).toContain(`${loc(text, '10')}: timeout: 10 has no unit; write 10s or 10ms`);
    expect(message).toContain(`${loc(text, '0, checkTimeout')}: idleTimeout: 0 has no unit; write 0s or 0ms`);
    expect(message).toContain(`${loc(text, '2.5')}: checkTimeout: 2.5 has no unit; write 2.5s or 2.5ms`);
  });

  it('other non-strings say what a duration is; strings keep working', () => {
    expect(invalid(() => parse('workers: {w: {}}\nsteps: [{id: a, worker: w, prompt: x, timeout: [1]}]\n'))).toContain(
      'timeout: a duration is a string such as 500ms, 30s, 5m or 1.5h',
    );
    const wf = parse('workers: {w: {}}\nsteps: [{id: a, worker: w, prompt: x, timeout: 10s, idleTimeout: 500ms}]\n');
    expect(wf.spec.steps[0]).toMatchObject({ timeout: 10_000, idleTimeout: 500, checkTimeout: 300_000 });
  });
});
