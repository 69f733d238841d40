//! What a peer does with requests and notifications from the other side.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::jsonrpc::{code, ErrorObject};
use crate::msgpack_rpc::Raw;
use crate::Json;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;
type RequestFn<P, R, E> = Arc<dyn Fn(P) -> BoxFuture<Result<R, E>> + Send + Sync>;
type NotificationFn<P> = Arc<dyn Fn(P) + Send + Sync>;
type FallbackFn<P, R, E> = Arc<dyn Fn(String, P) -> BoxFuture<Result<R, E>> + Send + Sync>;

/// The methods a peer serves, by name, for one protocol: `P` is what
/// parameters arrive as, `R` a result, `E` an error.
pub struct MethodTable<P, R, E> {
    requests: HashMap<String, RequestFn<P, R, E>>,
    notifications: HashMap<String, NotificationFn<P>>,
    fallback: Option<FallbackFn<P, R, E>>,
}

/// JSON-RPC methods: parameters as [`Json`] (`None` when left out), and
/// results or [`ErrorObject`]s. A request for a method not here is
/// answered with -32601, as the spec says; a notification for one is
/// dropped (notifications are never answered).
///
/// ```
/// use ctywire_bridge::Json;
/// use ctywire_bridge::jsonrpc::ErrorObject;
/// use ctywire_bridge::runtime::Handlers;
/// let handlers = Handlers::new()
///     .request("health", |_| async { Ok(Json::parse(r#"{"ok":true}"#).unwrap()) })
///     .request("fail", |_| async { Err(ErrorObject::new(-32000, "no")) })
///     .notification("invokeProgress", |params| eprintln!("progress: {params:?}"));
/// ```
pub type Handlers = MethodTable<Option<Json>, Json, ErrorObject>;

/// msgpack-rpc methods: parameters, results and errors as [`Raw`]
/// msgpack values (decode cty values in them with [`Raw::decode`]). A
/// request for a method not here is answered with the error string
/// `"method not found: NAME"`.
pub type MsgpackHandlers = MethodTable<Vec<Raw>, Raw, Raw>;

impl<P, R, E> Default for MethodTable<P, R, E> {
    fn default() -> Self {
        MethodTable {
            requests: HashMap::new(),
            notifications: HashMap::new(),
            fallback: None,
        }
    }
}

impl<P, R, E> MethodTable<P, R, E> {
    /// No methods.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves requests for `method` with `f`, which runs on its own task:
    /// a slow one holds up nothing else.
    pub fn request<F, Fut>(mut self, method: &str, f: F) -> Self
    where
        F: Fn(P) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, E>> + Send + 'static,
    {
        self.requests
            .insert(method.to_string(), Arc::new(move |p| Box::pin(f(p))));
        self
    }

    /// Takes notifications of `method` with `f`, in the order they arrive
    /// and before any answer that comes after them.
    pub fn notification<F>(mut self, method: &str, f: F) -> Self
    where
        F: Fn(P) + Send + Sync + 'static,
    {
        self.notifications.insert(method.to_string(), Arc::new(f));
        self
    }

    /// Serves requests for every method not named with
    /// [`request`](Self::request), with the method's name: for a protocol
    /// that reads names liberally or answers an unknown method its own
    /// way (a Seasonings plugin, whose contract spells both, and answers a
    /// missing one with an error object).
    pub fn fallback<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(String, P) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, E>> + Send + 'static,
    {
        self.fallback = Some(Arc::new(move |m, p| Box::pin(f(m, p))));
        self
    }

    pub(super) fn request_fn(&self, method: &str) -> Option<RequestFn<P, R, E>>
    where
        P: 'static,
        R: 'static,
        E: 'static,
    {
        if let Some(f) = self.requests.get(method) {
            return Some(f.clone());
        }
        let fallback = self.fallback.clone()?;
        let method = method.to_string();
        Some(Arc::new(move |p| fallback(method.clone(), p)))
    }

    pub(super) fn notify(&self, method: &str, params: P) -> bool {
        match self.notifications.get(method) {
            Some(f) => {
                f(params);
                true
            }
            None => false,
        }
    }
}

/// The JSON-RPC answer for a method nobody serves.
pub(super) fn method_not_found(method: &str) -> ErrorObject {
    ErrorObject::new(
        code::METHOD_NOT_FOUND,
        format!("method not found: {method}"),
    )
}
