// Package parquetgo checks the dataset package's own Parquet reader and
// writer against another implementation, github.com/parquet-go/parquet-go,
// which the main module no longer links: parquet-go reads what the dataset
// command writes, row for row and with the schema it had when parquet-go
// wrote it; the dataset package reads what parquet-go writes (every codec,
// PLAIN, dictionary and delta encodings, data pages v1 and v2, nested
// lists, structs and maps, optional columns, many row groups and small
// pages) as parquet-go reads it. It also writes the small Parquet files
// the main module's tests read (go test -update).
package parquetgo
