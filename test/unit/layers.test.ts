import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

/** The layer-rule messages ESLint gives a file at `path` holding `source`. */
async function layerProblems(path: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path });
  return (result?.messages ?? []).filter((message) => message.ruleId === 'import-x/no-restricted-paths').map((message) => message.message);
}

describe('the layers of shared/ are enforced by lint (docs/architecture.md, "Layers")', () => {
  it('refuses a domain file that imports a port or a service', async () => {
    const problems = await layerProblems(
      'shared/domain/probe.ts',
      "import type { Store } from '../ports/store.js';\nimport type { Services } from '../services/services.js';\nexport type A = Store | Services;\n",
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('shared/domain may import only shared/domain');
  });

  it('refuses the runtime importing a service, and an adapter importing a service', async () => {
    expect(await layerProblems('shared/runtime/probe.ts', "import { LogWriter } from '../services/logWriter.js';\nexport const A = LogWriter;\n")).toHaveLength(
      1,
    );
    expect(
      await layerProblems(
        'shared/adapters/local/probe.ts',
        "import type { JobLifecycle } from '../../services/jobLifecycle.js';\nexport type A = JobLifecycle;\n",
      ),
    ).toHaveLength(1);
  });

  it('refuses shared/ importing an entry point, and config importing http', async () => {
    expect(await layerProblems('shared/services/probe.ts', "import { CliError } from '../../cli/cliError.js';\nexport const A = CliError;\n")).toHaveLength(1);
    expect(await layerProblems('shared/config.ts', "import { corsPolicy } from './http/cors.js';\nexport const A = corsPolicy;\n")).toHaveLength(1);
  });

  it('lets each layer import the layers below it', async () => {
    expect(
      await layerProblems(
        'shared/services/probe.ts',
        "import type { Store } from '../ports/store.js';\nimport type { JobRecord } from '../domain/job.js';\nexport type A = Store | JobRecord;\n",
      ),
    ).toEqual([]);
    expect(
      await layerProblems(
        'shared/adapters/local/probe.ts',
        "import { runCommand } from '../../system/runCommand.js';\nimport type { JobReports } from '../../ports/jobReports.js';\nexport type A = JobReports | typeof runCommand;\n",
      ),
    ).toEqual([]);
    expect(
      await layerProblems(
        'shared/app/probe.ts',
        "import { createServices } from '../services/services.js';\nimport { LocalUploads } from '../adapters/local/localUploads.js';\nexport const A = [createServices, LocalUploads];\n",
      ),
    ).toEqual([]);
  });
});
