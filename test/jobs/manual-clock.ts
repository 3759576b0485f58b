import type { Clock } from '../../src/clock.js';

/** A clock the test moves by hand: business time and wall time separately (leases follow the wall). */
export class ManualClock implements Clock {
  readonly virtual = true;
  constructor(
    private business = new Date('2026-03-01T12:00:00.000Z'),
    private wall = new Date('2026-03-01T12:00:00.000Z'),
  ) {}
  now(): Date {
    return new Date(this.business.getTime());
  }
  wallNow(): Date {
    return new Date(this.wall.getTime());
  }
  advanceBusiness(ms: number): void {
    this.business = new Date(this.business.getTime() + ms);
  }
  advanceWall(ms: number): void {
    this.wall = new Date(this.wall.getTime() + ms);
  }
}
