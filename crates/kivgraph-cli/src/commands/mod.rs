pub mod audit;
pub mod doctor;
pub mod graph;
pub mod index;
pub mod init;
pub mod navigate;
pub mod serve;
pub mod version;
