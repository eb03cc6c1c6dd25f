/** The version of @umbel/cli. */
export const VERSION = '0.1.0';
