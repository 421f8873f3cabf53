import { describe, expect, it } from 'vitest';
import { continueAsNewDue, deploymentProblem, workerDeploymentOptions } from '../../src/core/versioning.js';

describe('workerDeploymentOptions', () => {
  it('makes a versioned worker whose runs are pinned by default', () => {
    expect(workerDeploymentOptions({ name: 'agents', buildId: 'v2' })).toEqual({
      useWorkerVersioning: true,
      version: { deploymentName: 'agents', buildId: 'v2' },
      defaultVersioningBehavior: 'PINNED',
    });
  });

  it('makes auto-upgrade runs when asked', () => {
    expect(workerDeploymentOptions({ name: 'agents', buildId: 'v2', versioning: 'auto-upgrade' }).defaultVersioningBehavior).toBe('AUTO_UPGRADE');
  });

  it('refuses an empty or spaced name or build id, and an unknown behavior, naming the fix', () => {
    expect(deploymentProblem({ name: '', buildId: 'v1' })).toMatch(/deployment name is empty: give one/);
    expect(deploymentProblem({ name: 'agents', buildId: ' ' })).toMatch(/build id is empty/);
    expect(deploymentProblem({ name: 'my agents', buildId: 'v1' })).toMatch(/has whitespace/);
    expect(deploymentProblem({ name: 'a', buildId: 'x'.repeat(256) })).toMatch(/at most 255/);
    expect(deploymentProblem({ name: 'a', buildId: 'v1', versioning: 'sticky' as never })).toMatch(/not one of pinned, auto-upgrade/);
    expect(() => workerDeploymentOptions({ name: '', buildId: 'v1' })).toThrow(/^worker deployment: the deployment name is empty/);
  });
});

describe('continueAsNewDue', () => {
  const base = { suggested: false, targetVersionChanged: false, stepsThisRun: 3, every: undefined };
  it('is due when the server suggests it, the step count is reached, or a new version is the target', () => {
    expect(continueAsNewDue(base)).toBe(false);
    expect(continueAsNewDue({ ...base, suggested: true })).toBe(true);
    expect(continueAsNewDue({ ...base, every: 3 })).toBe(true);
    expect(continueAsNewDue({ ...base, every: 4 })).toBe(false);
    expect(continueAsNewDue({ ...base, targetVersionChanged: true })).toBe(true);
  });

  it('is never due before the run has made a model call (no loop of empty runs)', () => {
    expect(continueAsNewDue({ suggested: true, targetVersionChanged: true, stepsThisRun: 0, every: 1 })).toBe(false);
  });
});
