import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { InFlight } from '../../src/http/in-flight.js';

const response = () => new http.ServerResponse(new http.IncomingMessage(new net.Socket()));

describe('InFlight (http/in-flight.ts): the responses a server has not closed', () => {
  it('holds what was added and not deleted, whatever the order of deletion', () => {
    const list = new InFlight();
    const [a, b, c, d] = [response(), response(), response(), response()];
    for (const r of [a, b, c, d]) list.add(r);
    expect(list.size).toBe(4);
    list.delete(b); // middle
    expect([...list]).toEqual([d, c, a]);
    list.delete(d); // newest
    list.delete(a); // oldest
    expect([...list]).toEqual([c]);
    expect(list.size).toBe(1);
    list.delete(c);
    expect([...list]).toEqual([]);
    expect(list.size).toBe(0);
    list.add(b); // a deleted response may come back
    expect([...list]).toEqual([b]);
  });

  it('ignores a response deleted twice or never added', () => {
    const list = new InFlight();
    const [a, b, stranger] = [response(), response(), response()];
    list.add(a);
    list.add(b);
    list.delete(a);
    list.delete(a);
    list.delete(stranger);
    expect([...list]).toEqual([b]);
    expect(list.size).toBe(1);
  });
});
