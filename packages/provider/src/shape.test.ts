/** The one shape check of a provider: every member of ProviderV1, required and optional. */
import { describe, expect, it } from 'vitest';
import { defineProvider, PROVIDER_SPEC_V1, providerShapeIssues } from './index.js';

const valid = () =>
  defineProvider({
    id: 'shape-test',
    displayName: 'Shape test',
    verifiedVersions: ['1.0.0'],
    binary: { name: 'shape-cli' },
    hooks: { events: { Submit: 'prompt', Done: 'stop' }, install: () => ({}) },
    screens: { ready: { hook: 'prompt' } },
    transcript: { read: () => ({ status: 'running' }) },
  });

describe('providerShapeIssues', () => {
  it('finds none in a provider the kit made', () => {
    expect(valid().specificationVersion).toBe(PROVIDER_SPEC_V1);
    expect(providerShapeIssues(valid())).toEqual([]);
  });

  it('names the specification a provider implements when it is not this one', () => {
    expect(providerShapeIssues({ ...valid(), specificationVersion: 'umbel-provider-v2' })).toEqual([
      "specificationVersion: implements 'umbel-provider-v2'; this umbel understands 'umbel-provider-v1'",
    ]);
    expect(providerShapeIssues(null)).toEqual(['(value): expected an object']);
  });

  it.each([
    ['providerId', 'Not Kebab', 'providerId: expected a kebab-case id (a-z, 0-9, -)'],
    ['displayName', '', 'displayName: expected a non-empty string'],
    ['doReadTurn', undefined, 'doReadTurn: expected a function'],
    ['doParseTranscript', 'nope', 'doParseTranscript: expected a function'],
    ['doForgetScratch', 1, 'doForgetScratch: expected a function'],
    ['doDetectBilling', {}, 'doDetectBilling: expected a function'],
    ['doClassifyTool', true, 'doClassifyTool: expected a function'],
    ['doFindActivityDirs', [], 'doFindActivityDirs: expected a function'],
    ['inheritEnv', 'HOME', 'inheritEnv: expected an array of strings'],
    ['verifiedVersions', [1], 'verifiedVersions: expected an array of strings'],
    ['sessionHook', 'later', "sessionHook: expected 'startup' or 'first-prompt'"],
    ['promptHook', true, "promptHook: expected 'every-prompt'"],
    ['sideRecords', {}, 'sideRecords: expected an array'],
    ['billing', 'api', 'billing: expected an object'],
    ['description', 3, 'description: expected a string'],
  ])('a bad %s is named', (member, value, issue) => {
    expect(providerShapeIssues({ ...valid(), [member]: value })).toEqual([issue]);
  });

  it('checks the capabilities member by member', () => {
    const p = valid();
    expect(providerShapeIssues({ ...p, capabilities: { ...p.capabilities, resume: 'yes', permissionModes: 'all' } })).toEqual([
      'capabilities.permissionModes: expected an array of strings',
      'capabilities.resume: expected a boolean',
    ]);
    expect(providerShapeIssues({ ...p, capabilities: undefined })).toEqual(['capabilities: expected an object']);
  });
});
