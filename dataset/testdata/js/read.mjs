// Prints the rows of a Parquet file as one JSON array, read by hyparquet.
// Integers (BigInt for INT64 columns) are written as JSON numbers.
// Usage: node read.mjs FILE.parquet
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet'

const file = await asyncBufferFromFile(process.argv[2])
const rows = await parquetReadObjects({ file })
process.stdout.write(JSON.stringify(rows, (_, v) => (typeof v === 'bigint' ? Number(v) : v)))
