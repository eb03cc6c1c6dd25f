/**
 * ink draws only a final frame when it believes it runs in CI (its `is-in-ci` reads `CI` and
 * `CONTINUOUS_INTEGRATION` once, when ink is first imported). `top` is interactive — it runs only on
 * a terminal — so ink is imported with those two hidden from the process environment, and they are
 * put back at once: nothing else (a worker, an attach) ever sees them changed.
 */
const CI_MARKERS = ['CI', 'CONTINUOUS_INTEGRATION'] as const;

/** Run `load` (the import of the view and ink) with the CI markers hidden; restores them. */
export async function importInteractive<T>(load: () => Promise<T>): Promise<T> {
  const saved = CI_MARKERS.map((key) => [key, process.env[key]] as const);
  for (const key of CI_MARKERS) delete process.env[key];
  try {
    return await load();
  } finally {
    for (const [key, value] of saved) if (value !== undefined) process.env[key] = value;
  }
}
