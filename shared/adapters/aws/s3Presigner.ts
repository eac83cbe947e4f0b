import type { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

/** The parts of the SDK's HTTP request that a URL is made of. */
interface SignedRequest {
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query: Record<string, string | string[] | null>;
  headers: Record<string, string>;
}

/** What the S3 client's own signer (SignatureV4MultiRegion) offers beyond signing. */
interface RequestPresigner {
  presign(request: SignedRequest, options: { expiresIn: number; unsignableHeaders?: Set<string> }): Promise<SignedRequest>;
}
type PresignerConstructor = new (init: Record<string, unknown>) => RequestPresigner;

/** Headers the SDK adds for its own use: signed, they would bind the URL to values the caller never sends. */
const SDK_HEADERS = /^(amz-sdk-|x-amz-user-agent$|x-amz-checksum-|x-amz-sdk-checksum-)/i;

/**
 * A presigned URL for one S3 command, made as @aws-sdk/s3-request-presigner's getSignedUrl
 * makes it (that package is not a dependency here): the command goes through the client's
 * middleware (so endpoint, path style and AWS_ENDPOINT_URL apply as for a real call) and is
 * stopped just before it would be signed and sent, then presigned with the client's signer.
 *
 * Headers left on the request are signed: a PutObject given ContentLength yields a URL that
 * S3 accepts only with exactly that many bytes. The SDK's checksum headers are dropped, as a
 * checksum of the empty body it saw would make S3 refuse any real upload.
 */
export async function presignedUrl(client: S3Client, command: PutObjectCommand | GetObjectCommand, expiresInS: number): Promise<string> {
  const config = client.config as unknown as Record<string, unknown> & { signerConstructor: PresignerConstructor };
  const signer = new config.signerConstructor({
    credentials: config.credentials,
    region: config.region,
    service: 's3',
    sha256: config.sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const stack = client.middlewareStack.clone();
  stack.addRelativeTo(
    () => async (args: { request: unknown }) => {
      const request = args.request as SignedRequest;
      for (const name of Object.keys(request.headers)) if (SDK_HEADERS.test(name)) delete request.headers[name];
      request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
      const presigned = await signer.presign(request, { expiresIn: expiresInS, unsignableHeaders: new Set(['content-type']) });
      return { response: {}, output: { $metadata: {}, presigned } };
    },
    { name: 'presignInsteadOfSend', relation: 'before', toMiddleware: 'awsAuthMiddleware', override: true },
  );
  const handler = (command as PutObjectCommand).resolveMiddleware(stack as S3Client['middlewareStack'], client.config, {});
  const { output } = (await handler({ input: command.input as PutObjectCommand['input'] })) as unknown as { output: { presigned: SignedRequest } };
  return formatUrl(output.presigned);
}

/** RFC 3986 escaping, as SigV4 canonicalizes it (encodeURIComponent leaves !'()* alone). */
const escape = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function formatUrl(request: SignedRequest): string {
  const query = Object.entries(request.query)
    .flatMap(([name, value]) => (value === null ? [escape(name)] : [value].flat().map((item) => `${escape(name)}=${escape(item)}`)))
    .join('&');
  const port = request.port ? `:${request.port}` : '';
  return `${request.protocol}//${request.hostname}${port}${request.path}${query ? `?${query}` : ''}`;
}
