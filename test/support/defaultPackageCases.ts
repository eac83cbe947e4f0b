/**
 * python_packages and the default packages a version with them gets: one table for both modes'
 * specs (the local builder's rule, defaultPackages.ts, and the image build's, infra/buildspec.ts).
 */
export const DEFAULT_PACKAGE_CASES: [packages: string[], defaults: string[]][] = [
  [[], ['requests', 'pydantic']],
  [['numpy==2.1.0'], ['requests', 'pydantic']],
  [['requests==2.31.0'], ['pydantic']],
  [['pydantic<2'], ['requests']],
  [['Requests'], ['pydantic']],
  [['pydantic[email]>=2'], ['requests']],
  [['PyDantic~=1.10', 'requests>=2'], []],
  [['requests_oauthlib', 'pydantic-core', 'pydantic.x'], ['requests', 'pydantic']],
];
