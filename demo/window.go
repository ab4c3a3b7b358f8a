package main

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/launch"
)

// The logical screen: one pixel per world unit. Ebiten scales it to the
// window, keeping its shape (letterboxed) whatever the window's size.
const (
	screenW = 1280
	screenH = 720
)

// window is the Ebiten side of the demo: the start screen, or a match being
// played. The simulation and the network run at their fixed rates on a
// goroutine of their own (Match.Play), whatever the display's rate: a slow
// display never makes the game laggy. Each Update samples the keyboard into
// the match's input; each Draw takes the world between two steps (View) just
// long enough to advance the interpolator to the frame's time and copy where
// every entity is drawn, then draws that copy with the world free.
type window struct {
	o      options
	stdout io.Writer
	stderr io.Writer
	text   *textWriter
	sound  *sound
	menu   *menu    // the start screen; nil when the flags chose the match
	play   *playing // the match under way, nil on the start screen
	shot   string   // screenshot file, written by the last Draw
	ending bool     // the next Draw is the last
	done   bool     // the last Draw ran
	err    error    // why the window ends, if it failed
	stop   chan os.Signal
	starts chan started // a match the start screen asked for, once made
	echo   bool         // print each key a frame sees (keyEchoEnv)
	framed bool         // a frame was echoed
	keys   []ebiten.Key
}

// keyEchoEnv, set in the environment, makes the window print each key as a
// frame sees it go down and up ("tandem-demo: key Escape down"), and its
// first frame: a script typing into the window waits for the frame that
// took a key instead of guessing how long a slow frame is.
const keyEchoEnv = "TANDEM_DEMO_KEY_ECHO"

// playing is a match shown in the window.
type playing struct {
	m        *match
	o        options // the match's own (the start screen sets its mode)
	view     *renderer
	sim      chan error // the simulation's end
	cancel   context.CancelFunc
	toggle   bool             // F2 was pressed: interpolation on/off at the next Draw
	fromMenu bool             // Esc goes back to the start screen
	held     bool             // the scene was taken as the match ended: Draw draws it, not the world
	receipts []tandem.Receipt // readCommands's, reused
}

// started is the outcome of making a match off the window's goroutine.
type started struct {
	m   *match
	o   options
	err error
}

// runWindow opens the window and runs until it is closed, Esc is pressed
// (on the start screen, or in a match the flags chose), -ticks is reached,
// the process is interrupted or a match the flags chose ends. With m nil it
// starts on the start screen. At the end it writes the sound's summary line
// (the effects called for, and whether they were heard) to stderr.
func runWindow(m *match, o options, stdout, stderr io.Writer) error {
	w := &window{o: o, stdout: stdout, stderr: stderr, shot: o.screenshot,
		stop: make(chan os.Signal, 1), starts: make(chan started, 1),
		text: newTextWriter(), sound: newSound(o.mute, stderr), echo: os.Getenv(keyEchoEnv) != ""}
	if w.text.err != nil {
		return fmt.Errorf("the fonts: %w", w.text.err)
	}
	defer func() { fmt.Fprintln(stderr, w.sound.summary()) }()
	signal.Notify(w.stop, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(w.stop)
	if m == nil {
		w.menu = &menu{name: o.Name}
		fmt.Fprintln(stderr, appName+": start screen")
	} else {
		w.begin(m, o, false)
	}
	ebiten.SetWindowSize(screenW, screenH)
	ebiten.SetWindowTitle(title)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetWindowClosingHandled(true)
	ebiten.SetTPS(ebiten.SyncWithFPS)
	err := ebiten.RunGame(w)
	if w.play != nil {
		w.leave()
	}
	if err != nil {
		return fmt.Errorf("the window could not run (%w); without a display use -headless", err)
	}
	return w.err
}

// begin shows match m, simulated on its own goroutine.
func (w *window) begin(m *match, o options, fromMenu bool) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &playing{m: m, o: o, view: newRenderer(m, o.netGraph, w.text), sim: make(chan error, 1), cancel: cancel, fromMenu: fromMenu}
	if fromMenu {
		p.view.escape = "menu"
	}
	p.view.hud.status = statusLine(m, o)
	if hosting := m.Hosting(); hosting != nil && fromMenu {
		p.view.hud.overlay = &overlay{
			title: "You are hosting",
			big:   hosting.Short,
			lines: []string{"Friends join with this code, read out (the start screen's Join a game),", "", "or with the whole join line, pasted or given to -join:", hosting.Line},
			hint:  "Enter, Space or a click to play  ·  the code stays at the top left  ·  the terminal has it too",
		}
	}
	w.play = p
	go func() { p.sim <- m.Play(ctx, o.ticks) }()
}

// statusLine is what the HUD says this machine is doing.
func statusLine(m *match, o options) string {
	switch {
	case m.Hosting() != nil:
		return "hosting  ·  join code " + m.Hosting().Short
	case m.Client() != nil:
		return "host " + o.Join + "  ·  you are " + o.Name // joining or playing: the bar and the world say which
	}
	return ""
}

// leave stops the match under way and closes it (a client tells the host
// it leaves, a host tells its peers it closes), printing its summary when
// it was started from the start screen.
func (w *window) leave() {
	p := w.play
	w.play = nil
	p.cancel()
	err := <-p.sim
	if p.fromMenu {
		fmt.Fprintln(w.stdout, p.m.summary())
	}
	p.m.Close()
	if p.fromMenu && w.menu != nil {
		w.menu.busy = ""
		if err != nil {
			w.menu.problem = err.Error()
			fmt.Fprintln(w.stderr, appName+":", err)
		}
		fmt.Fprintln(w.stderr, appName+": back to the start screen")
	}
}

// Update implements ebiten.Game.
func (w *window) Update() error {
	if w.done {
		return ebiten.Termination
	}
	if w.ending {
		return nil // wait for the last Draw
	}
	select {
	case <-w.stop:
		w.end(nil)
		return nil
	default:
	}
	if ebiten.IsWindowBeingClosed() {
		w.end(nil)
		return nil
	}
	if w.echo {
		w.echoKeys()
	}
	if w.play == nil {
		return w.updateMenu()
	}
	return w.updatePlay()
}

// echoKeys prints the keys this frame saw go down and up (keyEchoEnv), and
// a line at the first frame.
func (w *window) echoKeys() {
	if !w.framed {
		w.framed = true
		fmt.Fprintln(w.stderr, appName+": first frame")
	}
	w.keys = inpututil.AppendJustPressedKeys(w.keys[:0])
	for _, k := range w.keys {
		fmt.Fprintf(w.stderr, appName+": key %s down\n", k)
	}
	w.keys = inpututil.AppendJustReleasedKeys(w.keys[:0])
	for _, k := range w.keys {
		fmt.Fprintf(w.stderr, appName+": key %s up\n", k)
	}
}

// updateMenu runs the start screen and starts what it chooses.
func (w *window) updateMenu() error {
	select {
	case s := <-w.starts:
		if w.take(s) {
			fmt.Fprintln(w.stderr, appName+":", s.err)
		}
		return nil
	default:
	}
	o := w.o
	problem := w.menu.problem
	defer func() {
		if p := w.menu.problem; p != "" && p != problem {
			fmt.Fprintln(w.stderr, appName+": start screen:", p)
		}
	}()
	switch w.menu.update() {
	case chooseQuit:
		w.end(nil)
	case chooseAlone:
		m, err := openMatch(o, w.stdout, w.stderr)
		w.take(started{m, o, err})
	case chooseHost:
		o.Host = true
		m, err := openMatch(o, w.stdout, w.stderr)
		if err != nil {
			err = fmt.Errorf("could not host: %w", err)
		}
		w.take(started{m, o, err})
	case chooseJoin:
		jc, err := launch.ParseJoin(w.menu.line)
		if err != nil {
			w.menu.problem = err.Error()
			return nil
		}
		o.JoinWith(jc)
		w.menu.busy = "connecting to " + jc.Addr() + "…"
		go func() {
			m, err := openMatch(o, w.stdout, w.stderr)
			if err != nil {
				err = fmt.Errorf("could not join: %w", err)
			}
			w.starts <- started{m, o, err}
		}()
	}
	return nil
}

// take starts playing what the start screen started, or puts on the screen
// why it could not start and reports that it failed. A match started within
// an update is taken in that update, so a key pressed in the next one reaches
// the game, not the screen.
func (w *window) take(s started) (failed bool) {
	w.menu.busy = ""
	if s.err != nil {
		w.menu.problem = s.err.Error()
		return true
	}
	w.begin(s.m, s.o, true)
	return false
}

// updatePlay runs the window's side of a match.
func (w *window) updatePlay() error {
	p := w.play
	select {
	case err := <-p.sim:
		// -ticks reached, or the match ended by itself.
		p.sim <- err
		if p.fromMenu && !(p.o.ticks > 0 && p.m.Played() >= p.o.ticks) {
			w.leave()
			return nil
		}
		w.end(err)
		return nil
	default:
	}
	hud := &p.view.hud
	if inpututil.IsKeyJustPressed(ebiten.KeyEscape) {
		if hud.overlay != nil {
			hud.overlay = nil
			return nil
		}
		if p.fromMenu {
			w.leave()
			return nil
		}
		w.end(nil)
		return nil
	}
	if hud.overlay != nil && (inpututil.IsKeyJustPressed(ebiten.KeyEnter) || inpututil.IsKeyJustPressed(ebiten.KeySpace) ||
		inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft)) {
		hud.overlay = nil
		return nil
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyF2) {
		p.toggle = !p.toggle
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyF3) {
		p.view.netGraph = !p.view.netGraph
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyM) {
		hud.say(w.sound.toggleMute(), colText)
	}
	hud.scores = ebiten.IsKeyPressed(ebiten.KeyTab)
	hud.sound = w.sound.status()
	p.m.SetInput(readKeyboard()) // an overlay does not stop the game
	p.receipts = readCommands(p.m, hud, p.receipts)
	return nil
}

// end makes the next Draw the last one: it stops the simulation, takes the
// screenshot, then Update ends the loop.
func (w *window) end(err error) {
	w.ending = true
	w.err = err
	if w.play != nil {
		w.play.cancel()
		// The other side hears at once that this one ends, not after its
		// last frame is drawn and written (they would take the silence for
		// a broken connection: the first frame of a large world can take
		// seconds on a software renderer, past a host's idle timeout); the
		// world stays as it is for that frame.
		m := w.play.m
		switch {
		case m.Host() != nil:
			// Closing lets every player go (their entities leave the
			// world): the last frame shows the match as it ended, taken
			// before.
			w.play.collect(false)
			w.play.held = true
			m.Close()
		case m.Client() != nil:
			w.play.view.leaving, w.play.view.leftAs = true, m.Client().State()
			m.Close()
		}
	}
}

// Draw implements ebiten.Game.
func (w *window) Draw(screen *ebiten.Image) {
	if p := w.play; p != nil {
		w.drawPlay(screen, p)
	} else {
		w.menu.draw(screen, w.text)
	}
	if w.ending && !w.done {
		w.done = true
		if w.shot != "" {
			if err := writeScreenshot(screen, w.shot); err != nil && w.err == nil {
				w.err = err
			}
		}
	}
}

// drawPlay draws a frame of the match and plays the sounds it calls for.
func (w *window) drawPlay(screen *ebiten.Image, p *playing) {
	if !p.held {
		p.collect(w.ending && !p.o.Networked() && p.o.ticks > 0)
		for _, c := range p.view.cues {
			w.sound.cue(c.e, c.vol)
		}
	}
	p.view.draw(screen)
}

// collect takes the scene to draw from the world. With final, a world that
// reached -ticks is taken as it stands (alpha 1), as the summary line
// reports it.
func (p *playing) collect(final bool) {
	p.m.View(time.Now(), func(v *tandem.View) {
		if p.toggle {
			p.toggle = false
			v.Interpolator().SetEnabled(!v.Interpolator().Enabled())
		}
		alpha := v.Alpha()
		if final && int(v.World.ECS.Frame()) >= p.o.ticks {
			alpha = 1
		}
		p.view.collect(v, alpha)
	})
}

// Layout implements ebiten.Game: a fixed logical screen, which Ebiten scales
// to fit the window with bars where the shapes differ.
func (w *window) Layout(outsideWidth, outsideHeight int) (int, int) {
	return screenW, screenH
}

// writeScreenshot writes screen's pixels to path as PNG. It must run inside
// Draw.
func writeScreenshot(screen *ebiten.Image, path string) error {
	b := screen.Bounds()
	img := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	screen.ReadPixels(img.Pix)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("screenshot %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("screenshot %s: %w", path, err)
	}
	return nil
}
