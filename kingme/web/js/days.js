// The dailies' days, in one place: UTC days written YYYY-MM-DD, the day a daily game's seed
// names, and the streaks, kept as { count, last } where last is the day of the last success. A
// success the next day extends a streak; a missed day ends it.

// The server treats a game with this seed as the day's game (no other level, no takebacks).
const DAILY_SEED = /^daily-(\d{4}-\d{2}-\d{2})$/;

// The day a game's record is the daily game of, or null for any other game.
export function dailyDay(record) {
  return record?.setup?.seed?.match(DAILY_SEED)?.[1] || null;
}

export function dayBefore(day) {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - 1);
  return date.toISOString().slice(0, 10);
}

// The streak as it stands on day (0 once a day has been missed).
export function streakNow(streak, day) {
  if (!streak?.last || !day) return streak?.count || 0;
  return streak.last === day || streak.last === dayBefore(day) ? streak.count : 0;
}

// The streak after a success on day (unchanged by a second success the same day).
export function extendStreak(streak, day) {
  if (streak?.last === day) return streak;
  const count = streak?.last === dayBefore(day) ? streak.count + 1 : 1;
  return { count, last: day };
}
