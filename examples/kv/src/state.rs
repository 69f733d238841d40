//! kv's state store (`state_store "kv_fs"`): each Terraform state a file
//! `<root>/<id>.tfstate`, its lock a file `<root>/<id>.tflock` holding
//! core's lock information. The framework splits and joins Terraform's
//! chunks; a write goes to `<id>.tfstate.partial` and is renamed over the
//! state only once complete.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use ctywire_provider::{
    async_trait, LockError, LockInfo, Model, Result, StateStore, StateWriter, StoredState,
};
use serde::{Deserialize, Serialize};
use tokio::fs;
use tokio::io::AsyncWriteExt;

use super::{failed, Ctx};

/// Where Terraform's states are kept.
#[derive(Serialize, Deserialize, Model)]
pub(crate) struct Store {
    /// The directory of the state files; created if missing.
    root: String,
}

impl Store {
    /// `<root>/<id>.<ext>`, for a state id that is a plain file name.
    fn file(&self, id: &str, ext: &str) -> Result<PathBuf> {
        valid_key(id).map_err(|e| failed(&format!("invalid state id {id:?}"), e))?;
        Ok(Path::new(&self.root).join(format!("{id}.{ext}")))
    }
}

pub(crate) struct States;

/// A write in progress: removed unless committed.
pub(crate) struct Upload {
    file: fs::File,
    partial: PathBuf,
    path: PathBuf,
}

impl Drop for Upload {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.partial);
    }
}

#[async_trait]
impl StateWriter for Upload {
    async fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let e = |e| failed("cannot write the state", e);
        self.file.write_all(bytes).await.map_err(e)
    }

    async fn commit(self) -> Result<()> {
        let e = |e| failed("cannot store the state", e);
        self.file.sync_all().await.map_err(e)?;
        fs::rename(&self.partial, &self.path).await.map_err(e)
    }
}

/// The lock information in `lock`, when there is one.
async fn holder(lock: &Path) -> Result<Option<LockInfo>> {
    match fs::read(lock).await {
        Ok(json) => serde_json::from_slice(&json)
            .map(Some)
            .map_err(|e| failed("the lock file is damaged", e)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(failed("cannot read the lock", e)),
    }
}

#[async_trait]
impl StateStore<PathBuf> for States {
    type Config = Store;
    type Writer = Upload;

    async fn configure(&self, _: &Ctx, store: &Store) -> Result<()> {
        let e = |e| failed(&format!("cannot create {}", store.root), e);
        fs::create_dir_all(&store.root).await.map_err(e)
    }

    async fn read(&self, _: &Ctx, store: &Store, id: &str) -> Result<Option<StoredState>> {
        let e = |e| failed(&format!("cannot read state {id:?}"), e);
        match fs::File::open(store.file(id, "tfstate")?).await {
            Ok(f) => Ok(Some(StoredState::new(
                f.metadata().await.map_err(e)?.len(),
                f,
            ))),
            Err(err) if err.kind() == ErrorKind::NotFound => Ok(None),
            Err(err) => Err(e(err)),
        }
    }

    async fn write(&self, _: &Ctx, store: &Store, id: &str, _: u64) -> Result<Upload> {
        let (path, partial) = (
            store.file(id, "tfstate")?,
            store.file(id, "tfstate.partial")?,
        );
        let file = fs::File::create(&partial).await;
        let file = file.map_err(|e| failed(&format!("cannot write state {id:?}"), e))?;
        Ok(Upload {
            file,
            partial,
            path,
        })
    }

    async fn lock(
        &self,
        _: &Ctx,
        store: &Store,
        id: &str,
        info: &LockInfo,
    ) -> Result<(), LockError> {
        let lock = store.file(id, "tflock")?;
        let json = serde_json::to_vec(info).map_err(|e| failed("cannot encode the lock", e))?;
        // create_new: of two lockers, exactly one creates the file.
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
            .await
        {
            // flush: tokio writes in the background until then.
            Ok(mut f) => match f.write_all(&json).await.and(f.flush().await) {
                Ok(()) => Ok(()),
                Err(e) => Err(failed("cannot lock", e).into()),
            },
            Err(e) if e.kind() == ErrorKind::AlreadyExists => match holder(&lock).await? {
                Some(held) => Err(LockError::Held(held)),
                None => Err(failed("cannot lock", "the lock vanished; try again").into()),
            },
            Err(e) => Err(failed("cannot lock", e).into()),
        }
    }

    async fn unlock(
        &self,
        _: &Ctx,
        store: &Store,
        id: &str,
        lock_id: &str,
    ) -> Result<(), LockError> {
        let lock = store.file(id, "tflock")?;
        match holder(&lock).await? {
            Some(held) if held.id != lock_id => Err(LockError::Held(held)),
            _ => match fs::remove_file(&lock).await {
                Err(e) if e.kind() != ErrorKind::NotFound => Err(failed("cannot unlock", e).into()),
                _ => Ok(()),
            },
        }
    }

    async fn states(&self, _: &Ctx, store: &Store) -> Result<Vec<String>> {
        let e = |e| failed("cannot list the states", e);
        let mut dir = fs::read_dir(&store.root).await.map_err(e)?;
        let mut ids = Vec::new();
        while let Some(f) = dir.next_entry().await.map_err(e)? {
            let name = f.file_name().into_string().unwrap_or_default();
            ids.extend(name.strip_suffix(".tfstate").map(str::to_owned));
        }
        ids.sort();
        Ok(ids)
    }

    async fn delete(&self, _: &Ctx, store: &Store, id: &str) -> Result<()> {
        match fs::remove_file(store.file(id, "tfstate")?).await {
            Err(e) if e.kind() != ErrorKind::NotFound => Err(failed("cannot delete the state", e)),
            _ => Ok(()),
        }
    }
}

/// A state id names a file under the root: no separators, no dot files
/// (the rule kv's keys follow, declared on their attribute).
fn valid_key(key: &str) -> Result<(), String> {
    let ok = !key.is_empty() && !key.contains('/') && !key.starts_with('.');
    ok.then_some(())
        .ok_or_else(|| "must be non-empty, without \"/\", not starting with \".\"".into())
}
