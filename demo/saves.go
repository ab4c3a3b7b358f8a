package main

import "strings"

// The host's save: with -save FILE (a bbolt file, or a postgres:// URL) the
// world is saved there as it changes and restored from it at the next start;
// the host's identity (its certificate, the pin clients hold, and its
// stateless-reset key) is kept there too, so a restarted host is the same
// host to its players. -save '' keeps the world in memory only. Package
// launch opens it (Flags.OpenSave).

// saveWorld is the world's name in the save.
const saveWorld = "demo"

// appName names the directories the host keeps its save (the user's state
// directory) and reset key (the user's config directory) in, and begins
// every line the program logs. A game copied from the demo gives its own:
// one that keeps it restores the demo's world.
const appName = "tandem-demo"

// title is the game's name as the player sees it: the window's title, and in
// capitals on the start screen and the HUD. A copied game gives its own.
const title = "Tandem"

// banner is the title in capitals.
var banner = strings.ToUpper(title)
