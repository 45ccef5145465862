// Package gpupricetest is an in-memory fake of the GPU price API and of a Solana JSON-RPC node.
package gpupricetest
