package main

import (
	"fmt"
	"image"
	"image/png"
	"os"

	"github.com/hajimehoshi/ebiten/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
)

// The logical screen: one pixel per world unit. The window scales it.
const (
	screenW = 1280
	screenH = 720
)

// window is the Ebiten side of the demo: each Update samples the keyboard
// into the local player's input and lets the schedule run the steps that real
// time calls for (at 60 Hz, whatever the display's rate); each Draw draws the
// world blended between the last two steps by the schedule's Alpha.
type window struct {
	g      *game.Game
	local  arche.Entity
	ticks  ecs.Frame // stop after this frame (0: never)
	shot   string    // screenshot file, taken once frame >= ticks
	shotOK bool
	err    error
	quit   bool
	view   *renderer
}

// runWindow opens the window and runs until it is closed, Esc is pressed, or
// the -ticks limit is reached.
func runWindow(g *game.Game, local arche.Entity, o options) error {
	w := &window{g: g, local: local, ticks: ecs.Frame(o.ticks), shot: o.screenshot, view: newRenderer(g, local)}
	ebiten.SetWindowSize(screenW, screenH)
	ebiten.SetWindowTitle("Tandem")
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	// Update once per displayed frame; the schedule decides how many fixed
	// steps each update runs, so the simulation keeps 60 Hz and drawing
	// follows the display.
	ebiten.SetTPS(ebiten.SyncWithFPS)
	if err := ebiten.RunGame(w); err != nil {
		return fmt.Errorf("the window could not run (%w); without a display use -headless", err)
	}
	return w.err
}

// Update implements ebiten.Game.
func (w *window) Update() error {
	if w.quit || w.err != nil || ebiten.IsKeyPressed(ebiten.KeyEscape) {
		return ebiten.Termination
	}
	world := w.g.World
	if w.ticks > 0 && world.Frame() >= w.ticks {
		if w.shot == "" || w.shotOK {
			return ebiten.Termination
		}
		return nil // wait for Draw to take the screenshot
	}
	if world.Alive(w.local) {
		// The input is for the next frame; if this update runs several
		// steps, the later ones repeat it.
		w.g.PushInput(w.local, game.StampedInput{Frame: world.Frame() + 1, Input: readKeyboard()})
	}
	if w.ticks > 0 {
		// Stop on the exact frame: never catch up past it.
		w.g.Schedule.MaxCatchUp = min(8, int(w.ticks-world.Frame()))
	}
	w.g.Schedule.Advance()
	return nil
}

// Draw implements ebiten.Game.
func (w *window) Draw(screen *ebiten.Image) {
	alpha := w.g.Schedule.Alpha()
	if w.ticks > 0 && w.g.World.Frame() >= w.ticks {
		alpha = 1 // the final state, as the summary line reports it
	}
	w.view.draw(screen, alpha)
	if w.shot != "" && !w.shotOK && w.g.World.Frame() >= w.ticks {
		w.err = writeScreenshot(screen, w.shot)
		w.shotOK = true
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
