/**
 * python_packages and the default packages a version with them gets: one table for both modes'
 * specs (the local builder's rule, defaultPackages.ts, and the image build's, infra/buildspec.ts).
 */
const OTHERS = ['pillow', 'pyyaml', 'tqdm', 'typer'];

export const DEFAULT_PACKAGE_CASES: [packages: string[], defaults: string[]][] = [
  [[], ['requests', 'pydantic', ...OTHERS]],
  [['numpy==2.1.0'], ['requests', 'pydantic', ...OTHERS]],
  [['requests==2.31.0'], ['pydantic', ...OTHERS]],
  [['pydantic<2'], ['requests', ...OTHERS]],
  [['Requests'], ['pydantic', ...OTHERS]],
  [['pydantic[email]>=2'], ['requests', ...OTHERS]],
  [['PyDantic~=1.10', 'requests>=2'], OTHERS],
  [
    ['requests_oauthlib', 'pydantic-core', 'pydantic.x'],
    ['requests', 'pydantic', ...OTHERS],
  ],
  [
    ['Pillow==9.5.0', 'PyYAML', 'tqdm<5', 'typer[all]'],
    ['requests', 'pydantic'],
  ],
];
