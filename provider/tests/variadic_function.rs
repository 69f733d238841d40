//! A function whose last parameter is `#[model(variadic)]`, over a real
//! gRPC connection (tonic on a local TCP port, the client generated from
//! the same proto): `GetFunctions` answers the variadic parameter from
//! the declaration, and `CallFunction` gathers the trailing arguments.

use ctywire_provider::tfplugin6::client::{decode_dynamic_value, encode_dynamic_value};
use ctywire_provider::tfplugin6::pb::tfplugin6 as pb;
use ctywire_provider::tfplugin6::ProviderService;
use ctywire_provider::{Builder, FunctionError, Model, Result, Type, Value};
use pb::provider_client::ProviderClient;
use serde::{Deserialize, Serialize};
use tokio_stream::wrappers::TcpListenerStream;
use tonic::transport::Channel;

#[derive(Serialize, Deserialize, Model)]
struct Config {}

/// Joins strings with a separator.
#[derive(Serialize, Deserialize, Model)]
struct JoinArgs {
    /// Put between the parts.
    separator: String,
    /// The parts, in order.
    #[model(variadic)]
    parts: Vec<String>,
}

fn join(args: JoinArgs) -> Result<String, FunctionError> {
    if args.parts.iter().any(String::is_empty) {
        return Err(FunctionError {
            text: "a part is empty".into(),
            function_argument: Some(1),
        });
    }
    Ok(args.parts.join(&args.separator))
}

async fn client() -> ProviderClient<Channel> {
    let framework = Builder::from_fn(|_: Config| Ok(()))
        .pure_function("join", join)
        .build()
        .expect("a valid provider");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(ProviderService::new(framework).into_service())
            .serve_with_incoming(TcpListenerStream::new(listener)),
    );
    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    ProviderClient::new(channel)
}

async fn call(client: &mut ProviderClient<Channel>, args: &[&str]) -> pb::call_function::Response {
    let arguments = args
        .iter()
        .map(|a| encode_dynamic_value(&Value::string(*a), &Type::String).unwrap())
        .collect();
    client
        .call_function(pb::call_function::Request {
            name: "join".into(),
            arguments,
        })
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn the_variadic_parameter_is_answered_from_the_declaration() {
    let mut client = client().await;
    let functions = client
        .get_functions(pb::get_functions::Request {})
        .await
        .unwrap()
        .into_inner()
        .functions;
    let join = functions.get("join").expect("the function join");
    let names: Vec<&str> = join.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["separator"]);
    let variadic = join
        .variadic_parameter
        .as_ref()
        .expect("a variadic parameter");
    assert_eq!(variadic.name, "parts");
    assert_eq!(variadic.r#type, br#""string""#);
    assert!(!variadic.allow_null_value);
    assert_eq!(variadic.description, "The parts, in order.");
}

#[tokio::test]
async fn the_trailing_arguments_are_the_variadic_fields_elements() {
    let mut client = client().await;
    for (args, joined) in [
        (&["-"][..], ""),
        (&["-", "a"][..], "a"),
        (&["-", "a", "b", "c"][..], "a-b-c"),
    ] {
        let resp = call(&mut client, args).await;
        assert!(resp.error.is_none(), "{args:?}: {:?}", resp.error);
        let result = decode_dynamic_value(resp.result.as_ref(), &Type::String).unwrap();
        assert_eq!(result, Value::string(joined), "{args:?}");
    }
    let resp = call(&mut client, &["-", "a", ""]).await;
    let error = resp.error.expect("an empty part is refused");
    assert_eq!(error.text, "a part is empty");
    assert_eq!(error.function_argument, Some(1));
}
