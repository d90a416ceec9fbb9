// Sound effects and music, synthesized with the Web Audio API (no audio files).
// The audio context is created on the first user gesture, as browsers require.

let context = null;
let effectsGain = null;
let musicGain = null;
let musicTimer = null;
let musicStep = 0;
// Browsers refuse (and warn about) audio before the page's first click or key press.
let unlocked = false;
const settings = { sound: true, soundVolume: 0.6, music: false, musicVolume: 0.3 };

function audio() {
  if (context || !unlocked) return context;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  try {
    context = new Context();
  } catch {
    return null;
  }
  effectsGain = context.createGain();
  musicGain = context.createGain();
  effectsGain.connect(context.destination);
  musicGain.connect(context.destination);
  applyVolumes();
  return context;
}

function applyVolumes() {
  if (!context) return;
  effectsGain.gain.value = settings.sound ? settings.soundVolume : 0;
  musicGain.gain.value = settings.music ? settings.musicVolume * 0.25 : 0;
}

function tone(frequency, start, duration, { type = "sine", gain = 0.5, target = effectsGain } = {}) {
  const ctx = audio();
  if (!ctx) return;
  const oscillator = ctx.createOscillator();
  const envelope = ctx.createGain();
  oscillator.type = type;
  oscillator.frequency.value = frequency;
  const at = ctx.currentTime + start;
  envelope.gain.setValueAtTime(0.0001, at);
  envelope.gain.exponentialRampToValueAtTime(gain, at + 0.01);
  envelope.gain.exponentialRampToValueAtTime(0.0001, at + duration);
  oscillator.connect(envelope).connect(target);
  oscillator.start(at);
  oscillator.stop(at + duration + 0.02);
}

const EFFECTS = {
  move: () => tone(520, 0, 0.09, { type: "triangle", gain: 0.4 }),
  capture: () => {
    tone(330, 0, 0.08, { type: "square", gain: 0.15 });
    tone(220, 0.07, 0.12, { type: "square", gain: 0.15 });
  },
  crown: () => [523, 659, 784, 1047].forEach((f, i) => tone(f, i * 0.08, 0.18, { gain: 0.3 })),
  select: () => tone(880, 0, 0.04, { gain: 0.15 }),
  clock: () => tone(1320, 0, 0.05, { type: "square", gain: 0.1 }), // each of an online clock's last ten seconds
  illegal: () => tone(160, 0, 0.12, { type: "sawtooth", gain: 0.1 }),
  win: () => [523, 659, 784, 1047, 1319].forEach((f, i) => tone(f, i * 0.11, 0.35, { type: "triangle", gain: 0.3 })),
  lose: () => [392, 349, 311, 262].forEach((f, i) => tone(f, i * 0.16, 0.4, { type: "triangle", gain: 0.3 })),
  draw: () => [440, 440, 523].forEach((f, i) => tone(f, i * 0.14, 0.25, { type: "triangle", gain: 0.25 })),
};

export function play(name) {
  if (!settings.sound || !EFFECTS[name]) return;
  if (!audio()) return;
  if (context.state === "suspended") context.resume();
  EFFECTS[name]();
}

// A slow pentatonic wander: calm enough to think to.
const SCALE = [262, 294, 330, 392, 440, 523, 587, 659];
const PATTERN = [0, 2, 4, 5, 4, 2, 3, 1, 0, 4, 6, 5, 3, 2, 1, 2];

function musicTick() {
  const note = SCALE[PATTERN[musicStep % PATTERN.length]];
  tone(note, 0, 1.1, { type: "sine", gain: 0.6, target: musicGain });
  if (musicStep % 4 === 0) tone(note / 2, 0, 2.2, { type: "triangle", gain: 0.4, target: musicGain });
  musicStep += 1;
}

function updateMusic() {
  const wanted = settings.music && settings.musicVolume > 0 && !document.hidden;
  if (wanted && !musicTimer && audio()) {
    if (context.state === "suspended") context.resume();
    musicTimer = window.setInterval(musicTick, 600);
  } else if (!wanted && musicTimer) {
    window.clearInterval(musicTimer);
    musicTimer = null;
  }
}

export function configure(prefs) {
  settings.sound = Boolean(prefs.sound);
  settings.soundVolume = Number(prefs.soundVolume) / 100;
  settings.music = Boolean(prefs.music);
  settings.musicVolume = Number(prefs.musicVolume) / 100;
  applyVolumes();
  if (context || settings.music) updateMusic();
}

// Browsers start audio only from a user gesture: the first click or key press calls this.
export function unlock() {
  unlocked = true;
  if (settings.sound || settings.music) {
    audio();
    if (context && context.state === "suspended") context.resume();
    updateMusic();
  }
}

document.addEventListener("visibilitychange", () => {
  if (context) updateMusic();
});
