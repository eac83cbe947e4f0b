// One emulated Lambda execution environment: loads the function's handler once (the init
// phase), then runs one invocation at a time, as the parent sends them. Between invocations
// the parent freezes this process (SIGSTOP), as Lambda does: nothing runs here after a
// handler returns until the next invocation.
import { pathToFileURL } from 'node:url';

const { LAMBDA_TASK_ROOT, _HANDLER, AWS_LAMBDA_FUNCTION_NAME } = process.env;
const [file, exportName] = _HANDLER.split('.');

let handler;
try {
  const module = await import(pathToFileURL(`${LAMBDA_TASK_ROOT}/${file}.mjs`).href);
  handler = module[exportName];
  if (typeof handler !== 'function') throw new Error(`${file}.mjs exports no function "${exportName}"`);
} catch (error) {
  process.send({ type: 'init_error', error: describe(error) });
  process.exit(1);
}

function describe(error) {
  return { errorType: error?.name ?? 'Error', errorMessage: error?.message ?? String(error), stackTrace: String(error?.stack ?? '').split('\n') };
}

process.on('message', async (message) => {
  const context = {
    functionName: AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: '$LATEST',
    invokedFunctionArn: message.functionArn,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: message.requestId,
    logGroupName: `/aws/lambda/${AWS_LAMBDA_FUNCTION_NAME}`,
    logStreamName: String(process.pid),
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, message.deadline - Date.now()),
  };
  try {
    const result = await handler(message.event, context);
    process.send({ type: 'result', id: message.id, result: result === undefined ? null : result });
  } catch (error) {
    process.send({ type: 'error', id: message.id, error: describe(error) });
  }
});
process.send({ type: 'ready' });
