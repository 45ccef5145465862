package hosting_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"testing/fstest"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/hosting/hostingtest"
)

func Example() {
	srv := hostingtest.NewServer()
	defer srv.Close()
	client, err := hosting.New(hosting.WithBaseURL(srv.URL), hosting.WithToken(hostingtest.DefaultToken))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// The typical order: create a repository, write files, commit, deploy, visit the site.
	if _, err := client.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "hello", Description: "a first site"}); err != nil {
		log.Fatal(err)
	}
	for path, content := range map[string]string{
		"index.html":   "<!DOCTYPE html><title>Hello</title><h1>Hello, world</h1>",
		"css/site.css": "h1 { color: teal }",
	} {
		w, err := client.PutFile(ctx, "hello", path, []byte(content))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("wrote", w.Path, "as", w.Encoding)
	}
	commit, err := client.Commit(ctx, "hello", &hosting.CommitParams{Message: "first page"})
	if err != nil {
		log.Fatal(err)
	}
	deployment, err := client.Deploy(ctx, "hello", &hosting.DeployParams{Commit: commit.ID, Message: "go live"})
	if err != nil {
		log.Fatal(err)
	}
	site, err := client.SiteURL("hello")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("preview is the site:", deployment.PreviewURL == site)

	resp, err := http.Get(site)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, string(page))
	// Unordered output:
	// wrote index.html as content_base64
	// wrote css/site.css as content
	// preview is the site: true
	// 200 <!DOCTYPE html><title>Hello</title><h1>Hello, world</h1>
}

func ExampleClient_DeployDir() {
	srv := hostingtest.NewServer()
	defer srv.Close()
	client, err := hosting.New(hosting.WithBaseURL(srv.URL), hosting.WithToken(hostingtest.DefaultToken))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "docs"}); err != nil {
		log.Fatal(err)
	}

	// A folder on disk would be os.DirFS("public").
	folder := fstest.MapFS{
		"index.html":      {Data: []byte("<!DOCTYPE html><title>Docs</title>")},
		"guide/intro.md":  {Data: []byte("# Intro\n")},
		"img/pixel.png":   {Data: []byte{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a}},
		"styles/main.css": {Data: []byte("body { margin: 0 }\n")},
	}
	res, err := client.DeployDir(ctx, "docs", folder, &hosting.DeployDirParams{Concurrency: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("uploaded:", res.Uploaded)
	fmt.Println("site:", res.SiteURL == srv.URL+"/site/docs/")

	// A second run sends only what changed, and with Prune deletes what is gone.
	folder["guide/intro.md"] = &fstest.MapFile{Data: []byte("# Introduction\n")}
	delete(folder, "img/pixel.png")
	res, err = client.DeployDir(ctx, "docs", folder, &hosting.DeployDirParams{
		Prune:       true,
		Concurrency: 1, // one file at a time, so that the progress prints in order
		Progress: func(p hosting.Progress) {
			fmt.Printf("  %d/%d %s %s\n", p.FilesDone, p.FilesTotal, p.Action, p.Path)
		},
	})
	if err != nil {
		var ue *hosting.UploadError
		if errors.As(err, &ue) {
			log.Fatalf("nothing was committed; failed: %v", ue.Paths())
		}
		log.Fatal(err)
	}
	fmt.Println("uploaded:", res.Uploaded, "unchanged:", len(res.Unchanged), "deleted:", res.Deleted)
	// Output:
	// uploaded: [guide/intro.md img/pixel.png index.html styles/main.css]
	// site: true
	//   1/4 uploaded guide/intro.md
	//   2/4 unchanged index.html
	//   3/4 unchanged styles/main.css
	//   4/4 deleted img/pixel.png
	// uploaded: [guide/intro.md] unchanged: 2 deleted: [img/pixel.png]
}

func ExampleClient_File() {
	srv := hostingtest.NewServer()
	defer srv.Close()
	client, err := hosting.New(hosting.WithBaseURL(srv.URL), hosting.WithToken(hostingtest.DefaultToken))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "files"}); err != nil {
		log.Fatal(err)
	}
	logo := []byte{0x89, 'P', 'N', 'G', 0x00, 0xff}
	if _, err := client.PutFile(ctx, "files", "img/logo.png", logo); err != nil {
		log.Fatal(err)
	}
	f, err := client.File(ctx, "files", "img/logo.png")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d bytes, % x, carried as %s\n", len(f.Content), f.Content, f.Encoding)

	_, err = client.File(ctx, "files", "../etc/passwd")
	var invalid *sdk.ValidationError
	fmt.Println(errors.As(err, &invalid), invalid.Field)
	// Output:
	// 6 bytes, 89 50 4e 47 00 ff, carried as content_base64
	// true path
}

func ExampleContentEncoding() {
	for _, f := range []struct{ path, data string }{
		{"css/site.css", "body { margin: 0 }"},
		{"index.html", "<!DOCTYPE html><p>hi</p>"},
		{"notes.txt", "<script>alert(1)</script>"},
		{"logo.png", "\x89PNG"},
	} {
		fmt.Println(f.path, hosting.ContentEncoding(f.path, []byte(f.data)))
	}
	// Output:
	// css/site.css content
	// index.html content_base64
	// notes.txt content_base64
	// logo.png content_base64
}
