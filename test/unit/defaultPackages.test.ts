import { describe, expect, it } from 'vitest';
import { DEFAULT_PYTHON_PACKAGES, defaultPackagesFor, projectName } from '../../shared/domain/defaultPackages.js';
import { DEFAULT_PACKAGE_CASES } from '../support/defaultPackageCases.js';

describe('the default packages a version gets', () => {
  it('are what Sieve environments hold by default', () => {
    expect(DEFAULT_PYTHON_PACKAGES).toEqual(['requests', 'pydantic', 'pillow', 'pyyaml', 'tqdm', 'typer']);
  });

  it.each(DEFAULT_PACKAGE_CASES)('with python_packages %j: %j (a version naming one gets its own requirement)', (packages, defaults) => {
    expect(defaultPackagesFor(packages)).toEqual(defaults);
  });

  it.each([
    ['requests', 'requests'],
    ['Requests==2.31.0', 'requests'],
    ['pydantic[email]<3', 'pydantic'],
    ['Zope.Interface', 'zope-interface'],
    ['typing__extensions>=4', 'typing-extensions'],
    ['pydantic @ https://example.com/pydantic.whl', 'pydantic'],
    ['requests; python_version < "3.9"', 'requests'],
  ])('compares %j as the project %j (PEP 503)', (requirement, name) => {
    expect(projectName(requirement)).toBe(name);
  });
});
