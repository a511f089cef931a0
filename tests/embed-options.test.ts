/** An embedded lab's URL options only ever take parts away; anything unclear shows the part. */
import { describe, expect, test } from 'vitest';
import { embedOptions } from '../components/embed/embed-options';

describe('embedOptions', () => {
  test('nothing asked: everything shows', () => {
    expect(embedOptions('')).toEqual({ brief: true, db: true, panes: true });
    expect(embedOptions('?parentOrigin=https://course.example.org')).toEqual({ brief: true, db: true, panes: true });
  });
  test('each option leaves out its own part', () => {
    expect(embedOptions('?brief=0')).toEqual({ brief: false, db: true, panes: true });
    expect(embedOptions('?db=false')).toEqual({ brief: true, db: false, panes: true });
    expect(embedOptions('?panes=off&brief=NO')).toEqual({ brief: false, db: true, panes: false });
  });
  test('compact=1 is all three; compact=0 is nothing', () => {
    expect(embedOptions('?compact=1')).toEqual({ brief: false, db: false, panes: false });
    expect(embedOptions('?compact')).toEqual({ brief: false, db: false, panes: false });
    expect(embedOptions('?compact=0')).toEqual({ brief: true, db: true, panes: true });
  });
  test('a typo or another value shows the part', () => {
    expect(embedOptions('?brief=1&db=yes&panes=o')).toEqual({ brief: true, db: true, panes: true });
  });
});
