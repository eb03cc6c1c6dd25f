/** The `umbel` bin. The one place that exits the process. */
import { main } from './main.js';

const code = await main(process.argv.slice(2));
process.exit(code);
