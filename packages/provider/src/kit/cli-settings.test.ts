import { describe, expect, it } from 'vitest';
import { cliBinary } from './cli-settings.js';

describe('cliBinary', () => {
  it('names the configured executable only when the settings name one', () => {
    expect(cliBinary('acme', 'npm i -g acme', { bin: '/opt/acme' })).toStrictEqual({ name: 'acme', install: 'npm i -g acme', configured: '/opt/acme' });
    expect(cliBinary('acme', 'npm i -g acme', {})).toStrictEqual({ name: 'acme', install: 'npm i -g acme' });
    expect(cliBinary('acme', 'npm i -g acme', { bin: '' })).toStrictEqual({ name: 'acme', install: 'npm i -g acme' });
  });
});
