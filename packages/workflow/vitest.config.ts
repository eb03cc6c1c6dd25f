import { packageProject } from '../../vitest.package.config.js';

export default packageProject('@umbel/workflow');
