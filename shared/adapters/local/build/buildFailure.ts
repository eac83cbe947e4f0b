/** A build step failed for a reason the function's author can act on; the message says which. */
export class BuildFailure extends Error {
  override name = 'BuildFailure';
}
