// `node dist/devserver/install-cli.js`: finds (or downloads / builds, once per machine) the Temporal CLI and
// prints its path on stdout, so scripts can do TEMPORAL_CLI_PATH="$(node dist/devserver/install-cli.js)".
// Progress goes to stderr so it never pollutes that captured path.
import { findTemporalCli } from './find-temporal.js';

try {
  const cli = await findTemporalCli({ log: (m) => console.error(m) });
  process.stdout.write(`${cli}\n`);
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
