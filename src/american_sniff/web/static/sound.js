// Short sounds for the game page, made on the spot with the Web Audio API (no
// sound files): a click for a placement, a rising pair of notes for a score,
// three falling notes for a round's end. The "Sounds" switch turns them off,
// and the page remembers it (localStorage "sniff-sound").
"use strict";

const SOUNDS = {
  // each note: [frequency in Hz, start in seconds, length in seconds]
  place: { wave: "triangle", notes: [[520, 0, 0.07]] },
  score: { wave: "sine", notes: [[660, 0, 0.1], [990, 0.1, 0.16]] },
  round: { wave: "sine", notes: [[784, 0, 0.14], [659, 0.15, 0.14], [523, 0.3, 0.28]] },
};

let audio = null;  // made at the first sound, after the player has used the page
// The last sounds played, newest last (at most 20): what a test or a curious
// reader can check without hearing them.
const soundsPlayed = [];

function soundOn() {
  return localStorage.getItem("sniff-sound") !== "off";
}

function setSoundOn(on) {
  localStorage.setItem("sniff-sound", on ? "on" : "off");
}

function playSound(kind) {
  const sound = SOUNDS[kind];
  if (!sound || !soundOn()) return;
  soundsPlayed.push(kind);
  if (soundsPlayed.length > 20) soundsPlayed.shift();
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    if (!audio) audio = new Context();
    if (audio.state === "suspended") audio.resume();
    const now = audio.currentTime + 0.01;
    for (const [frequency, start, length] of sound.notes) {
      const tone = audio.createOscillator();
      const volume = audio.createGain();
      tone.type = sound.wave;
      tone.frequency.value = frequency;
      // A quick rise and a fall to silence: no click at either edge.
      volume.gain.setValueAtTime(0.0001, now + start);
      volume.gain.exponentialRampToValueAtTime(0.2, now + start + 0.01);
      volume.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      tone.connect(volume).connect(audio.destination);
      tone.start(now + start);
      tone.stop(now + start + length + 0.02);
    }
  } catch {
    // A browser without sound output: the game goes on in silence.
  }
}
