import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createS3Artifacts } from '../../../shared/adapters/aws/s3Artifacts.js';

const s3 = mockClient(S3Client);
const artifacts = createS3Artifacts({ client: new S3Client({ region: 'eu-west-1' }), bucket: 'sluice-artifacts' });
const noSuchKey = () => new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });

async function readAll(stream: AsyncIterable<unknown> | null): Promise<Buffer> {
  if (!stream) throw new Error('no stream');
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

let folder = '';
beforeEach(async () => {
  s3.reset();
  folder = await mkdtemp(join(tmpdir(), 'sluice-s3-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('createS3Artifacts', () => {
  it('puts a bundle at bundles/<version>.tar.gz', async () => {
    await artifacts.putBundle('version-1', Buffer.from('tarball'));
    const input = s3.commandCalls(PutObjectCommand)[0]?.args[0].input;
    expect(input).toMatchObject({ Bucket: 'sluice-artifacts', Key: 'bundles/version-1.tar.gz', ContentType: 'application/gzip' });
    expect(Buffer.from(input?.Body as Buffer).toString()).toBe('tarball');
  });

  it('streams a bundle by its key, and null when there is none', async () => {
    s3.on(GetObjectCommand, { Bucket: 'sluice-artifacts', Key: 'bundles/version-1.tar.gz' }).resolves({
      Body: Readable.from([Buffer.from('tar'), Buffer.from('ball')]) as any,
    });
    s3.on(GetObjectCommand, { Key: 'bundles/version-2.tar.gz' }).rejects(noSuchKey());
    expect((await readAll(await artifacts.readBundle('version-1'))).toString()).toBe('tarball');
    expect(await artifacts.readBundle('version-2')).toBeNull();
  });

  it('streams an upload from uploads/<organization>/<upload>, and null when there is none', async () => {
    s3.on(GetObjectCommand, { Bucket: 'sluice-artifacts', Key: 'uploads/org-1/u-1' }).resolves({ Body: Readable.from([Buffer.from('tarball')]) as any });
    s3.on(GetObjectCommand, { Key: 'uploads/org-2/u-1' }).rejects(noSuchKey());
    expect((await readAll(await artifacts.readUpload('org-1', 'u-1'))).toString()).toBe('tarball');
    expect(await artifacts.readUpload('org-2', 'u-1')).toBeNull();
  });

  it('lets other S3 errors through', async () => {
    s3.on(GetObjectCommand).rejects(new Error('AccessDenied'));
    await expect(artifacts.readBundle('version-1')).rejects.toThrow('AccessDenied');
  });

  it('streams an output file from its local path to files/<job>/<index>/<name>', async () => {
    const source = join(folder, 'scratch.bin');
    await writeFile(source, 'file bytes');
    await artifacts.putOutputFile('job-1', 2, '../../etc/out.png', source);
    const input = s3.commandCalls(PutObjectCommand)[0]?.args[0].input;
    expect(input).toMatchObject({ Bucket: 'sluice-artifacts', Key: 'files/job-1/2/out.png', ContentLength: 10 });
    expect((await readAll(input?.Body as Readable)).toString()).toBe('file bytes');
  });

  it('streams a local file to uploads/<organization>/<upload> (a File a job passes to another function)', async () => {
    const source = join(folder, 'tone.wav');
    await writeFile(source, 'RIFF bytes');
    await artifacts.putUploadFile('org-1', 'u-9', source, 10);
    const input = s3.commandCalls(PutObjectCommand)[0]?.args[0].input;
    expect(input).toMatchObject({ Bucket: 'sluice-artifacts', Key: 'uploads/org-1/u-9', ContentLength: 10 });
    expect((await readAll(input?.Body as Readable)).toString()).toBe('RIFF bytes');
    // The size the agent checked: a file that grew since is cut there.
    await artifacts.putUploadFile('org-1', 'u-10', source, 4);
    const cut = s3.commandCalls(PutObjectCommand)[1]?.args[0].input;
    expect(cut).toMatchObject({ Key: 'uploads/org-1/u-10', ContentLength: 4 });
    expect((await readAll(cut?.Body as Readable)).toString()).toBe('RIFF');
  });

  it('streams an output file found by listing its prefix, with the name its key ends with', async () => {
    s3.on(ListObjectsV2Command, { Bucket: 'sluice-artifacts', Prefix: 'files/job-1/2/' }).resolves({ Contents: [{ Key: 'files/job-1/2/out.png' }] });
    s3.on(GetObjectCommand, { Bucket: 'sluice-artifacts', Key: 'files/job-1/2/out.png' }).resolves({
      Body: Readable.from([Buffer.from('png bytes')]) as any,
      ContentLength: 9,
    });
    const file = await artifacts.openOutputFile('job-1', 2);
    expect(file).toMatchObject({ name: 'out.png', size: 9 });
    expect((await readAll(file!.stream)).toString()).toBe('png bytes');
    expect(s3.commandCalls(ListObjectsV2Command)[0]?.args[0].input).toEqual({ Bucket: 'sluice-artifacts', Prefix: 'files/job-1/2/', MaxKeys: 1 });
  });

  it('answers null for an output file that does not exist', async () => {
    s3.on(ListObjectsV2Command).resolves({ KeyCount: 0 });
    expect(await artifacts.openOutputFile('job-1', 0)).toBeNull();
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it('answers null for an output file deleted between the listing and the get', async () => {
    s3.on(ListObjectsV2Command).resolves({ Contents: [{ Key: 'files/job-1/0/a.txt' }] });
    s3.on(GetObjectCommand).rejects(noSuchKey());
    expect(await artifacts.openOutputFile('job-1', 0)).toBeNull();
  });
});
