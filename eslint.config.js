import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const EMULATOR_BAN = { group: ['**/emulator/*'], message: 'The AWS emulation (emulator/) is not part of the product.' };

/**
 * The layers of shared/ (docs/architecture.md, "Layers"): what each may import of the project.
 * Dependencies point down only; shared/app (the composition roots) may import every layer.
 */
const LAYERS = {
  domain: ['domain'],
  system: ['system'],
  ports: ['domain', 'ports'],
  services: ['domain', 'ports', 'services'],
  packaging: ['domain', 'system', 'packaging'],
  runtime: ['domain', 'ports', 'system', 'runtime'],
  adapters: ['domain', 'ports', 'system', 'packaging', 'runtime', 'adapters'],
  http: ['domain', 'ports', 'services', 'http'],
};
const ENTRY_POINTS = ['./cli', './bin', './handlers', './infra', './emulator', './web', './soak'];
const layerZones = [
  ...Object.entries(LAYERS).map(([layer, allowed]) => ({
    target: `./shared/${layer}`,
    from: './shared',
    except: allowed.map((name) => `./${name}`),
    message: `shared/${layer} may import only ${allowed.map((name) => `shared/${name}`).join(', ')} (docs/architecture.md, "Layers").`,
  })),
  { target: './shared/config.ts', from: './shared', except: ['./domain', './config.ts'], message: 'shared/config.ts may import only shared/domain.' },
  { target: './shared', from: ENTRY_POINTS, message: 'shared/ is imported by the entry points, never the other way round.' },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.data/', 'python/', 'examples/', 'web/dist/', 'test-artifacts/', 'dist/', '.gpu/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Layers and no import cycles, for the TypeScript the service runs (web/ has its own rule below).
    files: ['shared/**/*.ts', 'cli/**/*.ts', 'handlers/**/*.ts', 'infra/**/*.ts', 'bin/**/*.ts', 'emulator/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Without TypeScript's extensions and parser, no-cycle walks no .ts file and reports nothing.
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        AbortController: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
      'no-restricted-imports': 'off',
    },
  },
  {
    // The architecture's rule: AWS SDK only in aws adapters, handlers and infra; SQLite only in local adapters.
    files: ['shared/domain/**', 'shared/services/**', 'shared/ports/**', 'shared/http/**', 'shared/runtime/**', 'cli/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            EMULATOR_BAN,
            { group: ['@aws-sdk/*', 'aws-cdk-lib', 'aws-cdk-lib/*'], message: 'AWS SDK belongs in shared/adapters/aws, handlers/ or infra/.' },
            { group: ['better-sqlite3'], message: 'SQLite belongs in shared/adapters/local.' },
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON answers field by field; typing each wire shape again there adds nothing.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The dashboard runs in a browser: its globals, and only the public API (no server code).
    files: ['web/src/**'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        sessionStorage: 'readonly',
        fetch: 'readonly',
        URLSearchParams: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextDecoder: 'readonly',
        File: 'readonly',
        Response: 'readonly',
        ReadableStream: 'readonly',
        HTMLElement: 'readonly',
        HTMLInputElement: 'readonly',
        HTMLSelectElement: 'readonly',
        HTMLTextAreaElement: 'readonly',
        HTMLPreElement: 'readonly',
        Event: 'readonly',
        console: 'readonly',
      },
    },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/shared/*', '**/cli/*', '**/handlers/*', 'node:*'], message: 'The dashboard talks to the service only through its public HTTP API.' },
          ],
        },
      ],
    },
  },
  {
    // The AWS emulation reads CloudFormation templates and AWS answers, the soak the API's: untyped JSON by nature.
    files: ['emulator/**', 'soak/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The emulation stays out of the product: nothing the service runs may import it.
    files: ['shared/adapters/**', 'shared/app/**', 'handlers/**', 'infra/**', 'bin/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [EMULATOR_BAN] }] },
  },
);
