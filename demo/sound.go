package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/ebitengine/oto/v3"
	"github.com/hajimehoshi/ebiten/v2/audio"
	"github.com/hajimehoshi/ebiten/v2/audio/wav"

	"github.com/tandem-go/tandem/assets"
)

// effect is one of the demo's sounds.
type effect int

const (
	sfxHit  effect = iota // the ball struck (by a player, a crate, a wall)
	sfxDash               // a player dashed
	sfxGoal               // a goal
	sfxJoin               // a player came into the game
	sfxCount
)

var effectNames = [sfxCount]string{"hit", "dash", "goal", "join"}

// sampleRate is the audio context's rate: the effects' own (assets/sounds).
const sampleRate = 44100

// probeEnv, set in the environment, makes the demo check for an audio device
// and exit: 0 when it has one (see probeAudio).
const probeEnv = "TANDEM_DEMO_AUDIO_PROBE"

// probeTimeout bounds the device check.
const probeTimeout = 5 * time.Second

// sound plays the effects the drawn frames call for (cue). It counts every
// effect called for, played or not, so a machine with no audio device still
// shows what it would have played (the window's summary line).
//
// Ebiten's audio context ends the window's loop with an error when the
// machine has no audio device, so the device is first checked in a child
// process (this program with probeEnv set); only when that finds one is the
// context made. Until then, and without a device, the demo is silent, says
// so once, and plays on. Safe from one goroutine (the window's).
type sound struct {
	mu      sync.Mutex
	ctx     *audio.Context
	pcm     [sfxCount][]byte // decoded effects, at sampleRate
	state   string           // "" while checking, then "on", or why there is no sound
	muted   bool
	counts  [sfxCount]int
	played  int       // effects sent to the device
	log     io.Writer // where the one message about no sound goes
	started bool
}

// newSound starts checking for an audio device in the background; muted
// starts with the sound off (the device is then checked when M unmutes).
func newSound(muted bool, log io.Writer) *sound {
	s := &sound{muted: muted, log: log}
	if !muted {
		s.start()
	}
	return s
}

// start checks for the device once, in the background.
func (s *sound) start() {
	if s.started {
		return
	}
	s.started = true
	go func() {
		err := probeDevice()
		s.mu.Lock()
		defer s.mu.Unlock()
		if err != nil {
			s.state = "no sound: " + err.Error()
			fmt.Fprintf(s.log, appName+": %s; playing on without sound\n", s.state)
			return
		}
		if err := s.open(); err != nil {
			s.state = "no sound: " + err.Error()
			fmt.Fprintf(s.log, appName+": %s; playing on without sound\n", s.state)
			return
		}
		s.state = "on"
	}()
}

// open makes the audio context and decodes the effects.
func (s *sound) open() error {
	srcs := [sfxCount][]byte{sfxHit: assets.Hit, sfxDash: assets.Dash, sfxGoal: assets.Goal, sfxJoin: assets.Join}
	for i, b := range srcs {
		st, err := wav.DecodeWithSampleRate(sampleRate, bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("the %s effect: %w", effectNames[i], err)
		}
		pcm, err := io.ReadAll(st)
		if err != nil {
			return fmt.Errorf("the %s effect: %w", effectNames[i], err)
		}
		s.pcm[i] = pcm
	}
	s.ctx = audio.NewContext(sampleRate)
	return nil
}

// cue plays effect e at volume v (0..1) and counts it.
func (s *sound) cue(e effect, v float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[e]++
	if s.muted || s.ctx == nil {
		return
	}
	p := s.ctx.NewPlayerFromBytes(s.pcm[e])
	p.SetVolume(v)
	p.Play()
	s.played++
}

// toggleMute turns the sound off or on (the M key) and returns the message
// to show.
func (s *sound) toggleMute() string {
	s.mu.Lock()
	s.muted = !s.muted
	muted := s.muted
	s.mu.Unlock()
	if muted {
		return "sound off (M)"
	}
	s.start()
	return "sound on (M)"
}

// status is the HUD's word on the sound: "" when it plays.
func (s *sound) status() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.muted:
		return "sound off (M)"
	case s.state == "on" || s.state == "":
		return ""
	}
	return s.state
}

// summary is the sound's summary line: the effects called for, and whether
// they were heard.
func (s *sound) summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := "on"
	switch {
	case s.muted:
		out = "muted"
	case s.state == "":
		out = "checking"
	case s.state != "on":
		out = "none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, appName+": sound audio=%s played=%d", out, s.played)
	for i, n := range s.counts {
		fmt.Fprintf(&b, " %s=%d", effectNames[i], n)
	}
	return b.String()
}

// probeDevice runs this program as a child that checks for an audio device
// (probeAudio), so that a missing one cannot end this process's window. It
// returns why there is none, or nil.
func probeDevice() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot check the audio device (%v)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), probeEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout = &out // the audio libraries' own complaints go to stderr, dropped
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return errors.New("the audio device did not answer")
	case errors.As(err, &ee) && out.Len() > 0:
		return errors.New(strings.TrimSpace(out.String()))
	}
	return fmt.Errorf("cannot check the audio device (%v)", err)
}

// probeAudio is the child's side of probeDevice: it opens the audio device
// as Ebiten would, prints why it cannot, and returns the exit code.
func probeAudio(stdout io.Writer) int {
	c, ready, err := oto.NewContext(&oto.NewContextOptions{SampleRate: sampleRate, ChannelCount: 2, Format: oto.FormatFloat32LE})
	if err != nil {
		fmt.Fprintln(stdout, describeAudioError(err))
		return 1
	}
	select {
	case <-ready:
	case <-time.After(probeTimeout - time.Second):
		fmt.Fprintln(stdout, "the audio device did not get ready")
		return 1
	}
	// The device opens in the background: its failure shows once ready.
	if err := c.Err(); err != nil {
		fmt.Fprintln(stdout, describeAudioError(err))
		return 1
	}
	return 0
}

// describeAudioError shortens the audio library's error (each back end's
// failure, at length) to what a player needs.
func describeAudioError(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "PulseAudio") && strings.Contains(msg, "ALSA") {
		return "no audio device (neither PulseAudio nor ALSA has one)"
	}
	if len(msg) > 120 {
		msg = msg[:120] + "…"
	}
	return "no audio device (" + msg + ")"
}
