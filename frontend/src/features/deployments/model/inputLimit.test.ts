import { describe, expect, it } from 'vitest';
import { describeBytes, parseLimitKb } from './inputLimit';

describe('describeBytes', () => {
  it('says kB and MB as the server does', () => {
    expect(describeBytes(262144)).toBe('256 kB');
    expect(describeBytes(1536)).toBe('1.5 kB');
    expect(describeBytes(4 * 1024 * 1024)).toBe('4 MB');
    expect(describeBytes(900)).toBe('900 bytes');
  });
});

describe('parseLimitKb', () => {
  it('takes whole kB in the server range', () => {
    expect(parseLimitKb(' 512 ')).toEqual({ bytes: 524288 });
    expect(parseLimitKb('4096')).toEqual({ bytes: 4194304 });
  });
  it.each(['', '0', '4097', '1.5', 'lots'])('refuses %j, saying the range', (text) => {
    expect(parseLimitKb(text)).toEqual({ error: 'a whole number of kB from 1 to 4096' });
  });
});
