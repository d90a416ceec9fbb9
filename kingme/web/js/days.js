// Streaks of the dailies, kept as { count, last } where last is the UTC day (YYYY-MM-DD) of the
// last success. A success the next day extends it; a missed day ends it.

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
