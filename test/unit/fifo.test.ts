import { describe, expect, it } from 'vitest';
import { Fifo } from '../../shared/adapters/local/fifo.js';

describe('the local queue order (Fifo)', () => {
  it('hands items back in the order they were pushed, across interleaved pushes and takes', () => {
    const fifo = new Fifo<number>();
    const taken: number[] = [];
    let next = 0;
    for (let round = 0; round < 200; round += 1) {
      for (let i = 0; i < round % 7; i += 1) fifo.push(next++);
      for (let i = 0; i < round % 5; i += 1) {
        const item = fifo.shift();
        if (item !== undefined) taken.push(item);
      }
    }
    while (fifo.length > 0) taken.push(fifo.shift() as number);
    expect(taken).toEqual([...Array(next).keys()]);
  });

  it('counts what is left and answers undefined when empty', () => {
    const fifo = new Fifo<string>();
    expect(fifo.shift()).toBeUndefined();
    fifo.push('a');
    fifo.push('b');
    expect(fifo.length).toBe(2);
    expect(fifo.shift()).toBe('a');
    expect(fifo.length).toBe(1);
    expect(fifo.shift()).toBe('b');
    expect(fifo.length).toBe(0);
    expect(fifo.shift()).toBeUndefined();
  });
});
