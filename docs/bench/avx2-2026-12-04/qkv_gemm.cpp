#include <cblas.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
double now(){return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();}
int main(){
  int M=8192,K=128;
  std::vector<float> x(M*K,0.5f), w(K*384,0.25f), y(M*384), dy(M*384,0.1f), dx(M*K), dw(K*384);
  for(int rep=0;rep<3;rep++){
  double best3=1e9,best1=1e9,bb3=1e9,bb1=1e9,bw3=1e9,bw1=1e9;
  for(int r=0;r<20;r++){
    double t=now();
    for(int i=0;i<3;i++) cblas_sgemm(CblasRowMajor,CblasNoTrans,CblasNoTrans,M,128,K,1,x.data(),K,w.data()+i*128,384,0,y.data()+i*128,384);
    best3=std::min(best3,now()-t);
    t=now();
    cblas_sgemm(CblasRowMajor,CblasNoTrans,CblasNoTrans,M,384,K,1,x.data(),K,w.data(),384,0,y.data(),384);
    best1=std::min(best1,now()-t);
    // dx = dy W^T
    t=now();
    for(int i=0;i<3;i++) cblas_sgemm(CblasRowMajor,CblasNoTrans,CblasTrans,M,K,128,1,dy.data()+i*128,384,w.data()+i*128,384,i?1:0,dx.data(),K);
    bb3=std::min(bb3,now()-t);
    t=now();
    cblas_sgemm(CblasRowMajor,CblasNoTrans,CblasTrans,M,K,384,1,dy.data(),384,w.data(),384,0,dx.data(),K);
    bb1=std::min(bb1,now()-t);
    // dw = x^T dy
    t=now();
    for(int i=0;i<3;i++) cblas_sgemm(CblasRowMajor,CblasTrans,CblasNoTrans,K,128,M,1,x.data(),K,dy.data()+i*128,384,0,dw.data()+i*128,384);
    bw3=std::min(bw3,now()-t);
    t=now();
    cblas_sgemm(CblasRowMajor,CblasTrans,CblasNoTrans,K,384,M,1,x.data(),K,dy.data(),384,0,dw.data(),384);
    bw1=std::min(bw1,now()-t);
  }
  double f=2.0*M*K*384/1e9;
  printf("fwd 3x: %.0f GF/s  1x: %.0f | dx 3x: %.0f 1x: %.0f | dw 3x: %.0f 1x: %.0f\n",f/best3,f/best1,f/bb3,f/bb1,f/bw3,f/bw1);
  }
}
