// Package cli is the intentjournal command: journal ls, show, verify and
// compact, recover, report and finders coverage (docs/cli.md). Main runs
// it; a build of its own (the test bed's intentjournal-dev) passes Main
// extra finder types and commands. It sits at the top of the import
// graph: nothing in journal, recovery, ownership, inventory or adapter
// imports it (TestLibraryDoesNotImportTheCLI).
package cli
