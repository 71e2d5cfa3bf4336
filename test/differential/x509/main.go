// The Go side of the trust-bundle differential test: Go's own encoding/pem and crypto/x509
// (standard library only) judge what the TypeScript validation judges. One request per stdin
// line, one answer per stdout line:
//
//	V            -> the Go version (runtime.Version())
//	C <base64>   -> "ok ca" | "ok notca" | "err <x509 error>" for x509.ParseCertificate(der)
//	B <base64>   -> a JSON array of kube's validateTrustBundle messages for that bundle text
//
// The B rules follow kube-apiserver's ClusterTrustBundle validation (pkg/apis/certificates/
// validation): every PEM block must be a CERTIFICATE without headers that parses and has the CA
// bit; no duplicates; at least one. They are restated here, not imported, to keep this program
// to the standard library.
package main

import (
	"bufio"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
)

func certificate(der []byte) string {
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return "err " + strings.ReplaceAll(err.Error(), "\n", " ")
	}
	if cert.IsCA {
		return "ok ca"
	}
	return "ok notca"
}

func bundle(in string) []string {
	msgs := []string{}
	if len(in) > 1024*1024 {
		return append(msgs, "too long")
	}
	dedupe := map[string][]int{}
	var order []string
	rest := []byte(in)
	i := -1
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		i++
		if b.Type != "CERTIFICATE" {
			msgs = append(msgs, fmt.Sprintf("entry %d has bad block type: %v", i, b.Type))
			continue
		}
		if len(b.Headers) != 0 {
			msgs = append(msgs, fmt.Sprintf("entry %d has PEM block headers", i))
			continue
		}
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			msgs = append(msgs, fmt.Sprintf("entry %d does not parse as X.509", i))
			continue
		}
		if !cert.IsCA {
			msgs = append(msgs, fmt.Sprintf("entry %d does not have the CA bit set", i))
			continue
		}
		if !cert.BasicConstraintsValid {
			msgs = append(msgs, fmt.Sprintf("entry %d has invalid basic constraints", i))
			continue
		}
		key := string(b.Bytes)
		if _, ok := dedupe[key]; !ok {
			order = append(order, key)
		}
		dedupe[key] = append(dedupe[key], i)
	}
	if len(msgs) > 0 {
		return msgs
	}
	if len(dedupe) == 0 {
		return append(msgs, "at least one trust anchor must be provided")
	}
	// kube ranges over a map (random order); sort by first index so the output is stable.
	sort.Slice(order, func(a, b int) bool { return dedupe[order[a]][0] < dedupe[order[b]][0] })
	for _, key := range order {
		if idx := dedupe[key]; len(idx) > 1 {
			msgs = append(msgs, fmt.Sprintf("duplicate trust anchor (indices %v)", idx))
		}
	}
	return msgs
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<20), 8<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		line := in.Text()
		if line == "V" {
			fmt.Fprintln(out, runtime.Version())
			continue
		}
		if len(line) < 2 {
			fmt.Fprintln(out, "bad request")
			continue
		}
		data, err := base64.StdEncoding.DecodeString(line[2:])
		if err != nil {
			fmt.Fprintln(out, "bad request")
			continue
		}
		switch line[0] {
		case 'C':
			fmt.Fprintln(out, certificate(data))
		case 'B':
			j, _ := json.Marshal(bundle(string(data)))
			fmt.Fprintln(out, string(j))
		default:
			fmt.Fprintln(out, "bad request")
		}
	}
}
