package main

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
)

// The logical screen: one pixel per world unit. The window scales it.
const (
	screenW = 1280
	screenH = 720
)

// window is the Ebiten side of the demo: each Update samples the keyboard
// into the match's input and lets the match run the steps that real time
// calls for (at 60 Hz, whatever the display's rate); each Draw advances the
// interpolator to the frame's time and draws every entity where it says,
// local ones blended between the last two steps by the schedule's Alpha.
type window struct {
	m      match
	o      options
	ticks  int    // stop once this many ticks counted (0: never)
	shot   string // screenshot file, written by the last Draw
	ending bool   // the next Draw is the last
	done   bool   // the last Draw ran
	err    error  // why the window ends, if it failed
	stop   chan os.Signal
	view   *renderer
}

// runWindow opens the window and runs until it is closed, Esc is pressed,
// the -ticks limit is reached, the process is interrupted or the match ends.
func runWindow(m match, o options) error {
	w := &window{m: m, o: o, ticks: o.ticks, shot: o.screenshot, stop: make(chan os.Signal, 1),
		view: newRenderer(m, o.netGraph)}
	signal.Notify(w.stop, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(w.stop)
	ebiten.SetWindowSize(screenW, screenH)
	ebiten.SetWindowTitle("Tandem")
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	// Update once per displayed frame; the schedule decides how many fixed
	// steps each update runs, so the simulation keeps 60 Hz and drawing
	// follows the display. Networked, the simulation is also the network's
	// heartbeat: it catches up on up to half a second of slow drawing.
	ebiten.SetTPS(ebiten.SyncWithFPS)
	if o.networked() {
		m.Game().Schedule.MaxCatchUp = 30
	}
	if err := ebiten.RunGame(w); err != nil {
		return fmt.Errorf("the window could not run (%w); without a display use -headless", err)
	}
	return w.err
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
	if ebiten.IsKeyPressed(ebiten.KeyEscape) {
		w.end(nil)
		return nil
	}
	if w.m.Ended() {
		w.end(w.m.Err())
		return nil
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyF2) {
		ip := w.m.Interpolator()
		ip.SetEnabled(!ip.Enabled())
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyF3) {
		w.view.netGraph = !w.view.netGraph
	}
	w.m.SetInput(readKeyboard())
	g := w.m.Game()
	if !w.o.networked() && w.ticks > 0 {
		// Alone, stop on the exact frame: never catch up past it.
		g.Schedule.MaxCatchUp = min(8, max(0, w.ticks-int(g.World.Frame())))
	}
	w.m.Advance()
	if w.ticks > 0 && w.m.Ticks() >= w.ticks {
		w.end(nil)
	}
	return nil
}

// end makes the next Draw the last one: it takes the screenshot, then Update
// ends the loop.
func (w *window) end(err error) {
	w.ending = true
	w.err = err
}

// Draw implements ebiten.Game.
func (w *window) Draw(screen *ebiten.Image) {
	g := w.m.Game()
	alpha := g.Schedule.Alpha()
	if w.ending && !w.o.networked() && w.ticks > 0 && int(g.World.Frame()) >= w.ticks {
		alpha = 1 // the final state, as the summary line reports it
	}
	w.m.BeforeDraw(time.Now())
	w.view.draw(screen, alpha)
	if w.ending && !w.done {
		w.done = true
		if w.shot != "" {
			if err := writeScreenshot(screen, w.shot); err != nil && w.err == nil {
				w.err = err
			}
		}
	}
}

// Layout implements ebiten.Game: a fixed logical screen, scaled to the window.
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
