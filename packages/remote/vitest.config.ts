import { packageProject } from '../../vitest.package.js';

export default packageProject('@umbel/remote');
