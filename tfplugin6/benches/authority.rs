//! Criterion: what the `:authority` filter (src/authority.rs) costs a
//! request. The client's bytes of a connection of 100 gRPC calls, as h2's
//! client encodes them (HPACK with Huffman strings and the dynamic table,
//! as grpc-go, Terraform's client, does), through the filter: as Terraform
//! sends them (every block passed on as it came), and after a block with a
//! refused `:authority` (every block re-encoded); and, for comparison,
//! only copied.

use std::time::Duration;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ctywire_tfplugin6::authority::AuthorityFilter;
use tokio::io::AsyncReadExt;

const CALLS: usize = 100;
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The client's bytes of `CALLS` unary calls, each a 200-byte message.
async fn connection() -> Vec<u8> {
    let (client, mut server) = tokio::io::duplex(1 << 22);
    let (mut send, conn) = h2::client::handshake(client).await.expect("a handshake");
    tokio::spawn(conn);
    for i in 0..CALLS {
        let path = [
            "GetProviderSchema",
            "ValidateResourceConfig",
            "PlanResourceChange",
        ][i % 3];
        let request = http::Request::post(format!("http://localhost/tfplugin6.Provider/{path}"))
            .header("content-type", "application/grpc")
            .header("user-agent", "grpc-go/1.69.4")
            .header("te", "trailers")
            .header("grpc-timeout", "299999m")
            .body(())
            .expect("a request");
        send = send.ready().await.expect("ready");
        let (_, mut body) = send.send_request(request, false).expect("sent");
        body.send_data(Bytes::from(vec![7u8; 205]), true)
            .expect("the message");
    }
    let mut bytes = vec![];
    let mut buf = vec![0; 1 << 16];
    while let Ok(Ok(n)) =
        tokio::time::timeout(Duration::from_millis(200), server.read(&mut buf)).await
    {
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n]);
    }
    bytes
}

/// `input` through a filter in 16 KiB reads, as the connection reads it.
fn filter(input: &[u8], out: &mut Vec<u8>) -> bool {
    let mut filter = AuthorityFilter::new();
    for chunk in input.chunks(16 * 1024) {
        out.clear();
        filter.push(chunk, out).expect("no error");
    }
    filter.rewrote()
}

fn authority(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let terraform = runtime.block_on(connection());
    assert!(terraform.starts_with(PREFACE));
    // A first block with grpcio's `:authority` (a literal, not indexed, so
    // the rest refers to the same table), then the same calls.
    let mut grpcio = PREFACE.to_vec();
    let mut block = vec![0x83, 0x86, 0x84, 0x01, 23];
    block.extend_from_slice(b"tmp%2Fx%2Fprovider.sock");
    grpcio.extend_from_slice(&[0, 0, block.len() as u8, 0x1, 0x5, 0, 0, 0, 1]);
    grpcio.extend_from_slice(&block);
    grpcio.extend_from_slice(&terraform[PREFACE.len()..]);

    let mut out = Vec::with_capacity(1 << 16);
    assert!(!filter(&terraform, &mut out));
    assert!(filter(&grpcio, &mut out));
    let mut group = c.benchmark_group("authority_filter");
    group.throughput(Throughput::Elements(CALLS as u64));
    group.bench_function("100_calls_passed_on", |b| {
        b.iter(|| filter(&terraform, &mut out))
    });
    group.bench_function("100_calls_reencoded", |b| {
        b.iter(|| filter(&grpcio, &mut out))
    });
    group.bench_function("100_calls_copied", |b| {
        b.iter(|| {
            for chunk in terraform.chunks(16 * 1024) {
                out.clear();
                out.extend_from_slice(chunk);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, authority);
criterion_main!(benches);
