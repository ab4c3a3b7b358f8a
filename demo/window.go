package main

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/tandem-go/tandem"
)

// The logical screen: one pixel per world unit. The window scales it.
const (
	screenW = 1280
	screenH = 720
)

// window is the Ebiten side of the demo. The simulation and the network run
// at their fixed rates on a goroutine of their own (simulate), whatever the
// display's rate: a slow display never makes the game laggy. Each Update
// samples the keyboard into the match's input; each Draw takes the world
// between two steps (View) just long enough to advance the interpolator to
// the frame's time and copy where every entity is drawn (local ones blended
// between the last two steps), then draws that copy with the world free.
type window struct {
	m      match
	o      options
	shot   string // screenshot file, written by the last Draw
	ending bool   // the next Draw is the last
	done   bool   // the last Draw ran
	err    error  // why the window ends, if it failed
	stop   chan os.Signal
	sim    chan error // the simulation's end
	cancel context.CancelFunc
	view   *renderer
	toggle bool // F2 was pressed: interpolation on/off at the next Draw
}

// runWindow opens the window and runs until it is closed, Esc is pressed,
// the -ticks limit is reached, the process is interrupted or the match ends.
func runWindow(m match, o options) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &window{m: m, o: o, shot: o.screenshot, stop: make(chan os.Signal, 1),
		sim: make(chan error, 1), cancel: cancel, view: newRenderer(m, o.netGraph)}
	signal.Notify(w.stop, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(w.stop)
	ebiten.SetWindowSize(screenW, screenH)
	ebiten.SetWindowTitle("Tandem")
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetTPS(ebiten.SyncWithFPS)
	go func() { w.sim <- simulate(ctx, m, o) }()
	err := ebiten.RunGame(w)
	cancel()
	<-w.sim
	if err != nil {
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
	case err := <-w.sim:
		// -ticks reached, or the match ended.
		w.sim <- err
		w.end(err)
		return nil
	default:
	}
	if ebiten.IsKeyPressed(ebiten.KeyEscape) {
		w.end(nil)
		return nil
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyF2) {
		w.toggle = !w.toggle
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyF3) {
		w.view.netGraph = !w.view.netGraph
	}
	w.m.SetInput(readKeyboard())
	return nil
}

// end makes the next Draw the last one: it stops the simulation, takes the
// screenshot, then Update ends the loop.
func (w *window) end(err error) {
	w.ending = true
	w.err = err
	w.cancel()
}

// Draw implements ebiten.Game.
func (w *window) Draw(screen *ebiten.Image) {
	final := w.ending && !w.o.networked() && w.o.ticks > 0
	w.m.View(time.Now(), func(v *tandem.View) {
		if w.toggle {
			w.toggle = false
			v.Interpolator().SetEnabled(!v.Interpolator().Enabled())
		}
		alpha := v.Alpha()
		if final && int(v.World.ECS.Frame()) >= w.o.ticks {
			alpha = 1 // the final state, as the summary line reports it
		}
		w.view.collect(v, alpha)
	})
	w.view.draw(screen)
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
