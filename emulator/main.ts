// `npm run aws:local`: the AWS composition on this machine, against moto and dynalite.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keyLines, tryItLines } from '../cli/banner.js';
import { CliError } from '../cli/client.js';
import { deployCommand } from '../cli/commands/deploy.js';
import { exampleFolders, examplesLeftOutLine } from '../shared/app/deployExamples.js';
import { startAwsLocal } from './awsLocal.js';
import { awsLocalSettings } from './settings.js';

const EXAMPLES_DIR = fileURLToPath(new URL('../examples', import.meta.url));
const print = (line: string) => process.stdout.write(`${line}\n`);

const settings = awsLocalSettings(process.env);
print('Starting the emulated AWS deployment (moto_server, dynalite, cdk synth)…');
let emulation;
try {
  emulation = await startAwsLocal({ ...settings, onEvent: (message) => settings.verbose && process.stderr.write(`[aws] ${message}\n`) });
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}
// Before the examples deploy (minutes, on a first start): Ctrl+C then still stops moto,
// dynalite and the tasks, and removes the emulation's aws-local.json.
const running = emulation;
let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) process.exit(1);
  stopping = true;
  print(`\n${signal}: shutting down…`);
  void running.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
// `kill -USR2 <pid>`: the AWS usage counted so far (emulator/usageMeter.ts), as usage.json in the data folder.
process.on('SIGUSR2', () => writeFileSync(join(settings.dataDir, 'usage.json'), `${JSON.stringify(running.usage(), null, 2)}\n`));
const { url, awaitUrl, bootstrapKey } = emulation;
keyLines(url, settings.dataDir, bootstrapKey).forEach(print);
print(`Await up to 10 minutes through the function URL: ${awaitUrl}v2/jobs/JOB_ID/await`);
// As `npm start`: the examples that install packages are left to `sluice deploy`.
const examples = await exampleFolders(EXAMPLES_DIR, settings.python);
for (const { directory } of examples.starters) {
  try {
    await deployCommand(directory, { url, apiKey: bootstrapKey.key }, settings.python, print);
  } catch (error) {
    print(error instanceof CliError ? error.message : `Deploying ${directory} failed: ${(error as Error).message}`);
  }
}
if (examples.installing.length > 0) print(examplesLeftOutLine(examples.installing));
tryItLines(url, bootstrapKey, awaitUrl).forEach(print);
