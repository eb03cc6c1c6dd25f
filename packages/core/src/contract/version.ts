/** The version of @umbel/core (from package.json at build time). */
export const VERSION: string = '0.1.0';
