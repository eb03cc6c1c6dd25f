/** Version of @umbel/provider-claude (kept equal to package.json by a unit test). */
export const VERSION = '0.1.0';
