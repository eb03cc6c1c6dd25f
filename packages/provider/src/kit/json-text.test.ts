import { describe, expect, it } from 'vitest';
import { jsonText } from './json-text.js';

describe('jsonText', () => {
  it('writes 2-space JSON with a final newline', () => {
    expect(jsonText({ hooks: { Stop: [{ command: 'x' }] } })).toBe('{\n  "hooks": {\n    "Stop": [\n      {\n        "command": "x"\n      }\n    ]\n  }\n}\n');
    expect(jsonText([])).toBe('[]\n');
  });
});
