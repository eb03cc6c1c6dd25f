/** umbel's own environment, as every face passes it down. */
export type RuntimeEnv = Readonly<Record<string, string | undefined>>;
